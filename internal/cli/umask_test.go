//go:build unix

package cli

import (
	"bytes"
	"syscall"
	"testing"
	"time"
)

// SQLite creates its -wal and -shm files with mode 0666 minus the umask;
// only a private umask keeps them 0600 like every other file of ctxkeep.
func TestMainSetsAPrivateUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	var out bytes.Buffer
	p := Process{Args: []string{"version"}, Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Now: time.Now}
	if code := Main(time.Now(), p); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if got := syscall.Umask(0o022); got != 0o077 {
		t.Fatalf("umask after Main = %#o, want 0o077", got)
	}
}
