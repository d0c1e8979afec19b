//go:build unix

package hook

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO where the persisted output should be would block a plain open
// until the deadline; it is refused at once, as not a regular file.
func TestPersistedOutputFIFOIsRefused(t *testing.T) {
	f := newSwapFixture(t)
	results := filepath.Join(f.sessionDir, "tool-results")
	os.MkdirAll(results, 0o700)
	fifo := filepath.Join(results, "b1.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if out := f.persisted(fifo); out != "" {
		t.Fatalf("stdout %.200s", out)
	}
	f.failedOpen("not a regular file")
}

// The project's settings come with the repository: a FIFO there would
// hold the PreToolUse hook until its deadline. It is refused at once, and
// nothing is wrapped: rules that cannot be read cannot be checked.
func TestProjectSettingsFIFOIsRefused(t *testing.T) {
	f := newSwapFixture(t)
	project := f.vars["CLAUDE_PROJECT_DIR"]
	os.MkdirAll(filepath.Join(project, ".claude"), 0o700)
	if err := syscall.Mkfifo(filepath.Join(project, ".claude", "settings.json"), 0o600); err != nil {
		t.Skip(err)
	}
	if got := f.pre("bypassPermissions", "go test ./...", nil); got != "" {
		t.Fatalf("wrapped %q", got)
	}
	f.failedOpen("permission rules")
}
