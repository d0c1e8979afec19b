// Package testbin builds the real ctxkeep binary once per test process, so
// that tests exercise it the way Claude Code does: as a separate process
// reading stdin and writing stdout.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
	dir  string
)

// Path returns the path of a freshly built ctxkeep binary (static, as
// released), with ctxkeep-hook beside it (HookPath). They live until
// Cleanup.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		dir, err = os.MkdirTemp("", "ctxkeep-bin-")
		if err != nil {
			return
		}
		path = filepath.Join(dir, "ctxkeep")
		// Both executables, side by side as `make install` puts them:
		// install registers ctxkeep-hook for the hooks when it is there.
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
			"github.com/ctxkeep/ctxkeep/cmd/ctxkeep", "github.com/ctxkeep/ctxkeep/cmd/ctxkeep-hook")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var out []byte
		if out, err = cmd.CombinedOutput(); err != nil {
			err = &buildError{err: err, out: string(out)}
		}
	})
	if err != nil {
		t.Fatalf("building ctxkeep: %v", err)
	}
	return path
}

// HookPath is the path of the hook executable built beside Path.
func HookPath(t testing.TB) string { return filepath.Join(Dir(t), "ctxkeep-hook") }

// Dir is the folder holding the binary, for PATH.
func Dir(t testing.TB) string { return filepath.Dir(Path(t)) }

// Cleanup removes the built binary; call it from TestMain after m.Run.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
