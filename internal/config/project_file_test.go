//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The project's .ctxkeep.toml comes with a repository, and every hook call
// reads it: a FIFO, a link (to /dev/zero, say) or a huge file there is
// refused at once, as a config error, instead of hanging the hook or
// filling its memory. The timeout only guards the test from hanging.
func TestProjectFileIsReadAsInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	link := filepath.Join(dir, "link.toml")
	os.Symlink("/dev/zero", link)
	huge := filepath.Join(dir, "huge.toml")
	os.WriteFile(huge, nil, 0o600)
	os.Truncate(huge, 1<<30)
	for path, want := range map[string]string{fifo: "not a regular file", link: "symbolic link", huge: "size limit"} {
		done := make(chan error, 1)
		go func() { _, _, err := Load(Files{Project: path}, nil); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", filepath.Base(path), err, want)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: Load blocked", filepath.Base(path))
		}
	}
}
