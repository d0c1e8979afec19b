//go:build unix

// Package fsxtest is test support: paths of what is not a regular file,
// put where a transcript or an output is expected, for the tests of the
// readers that must refuse them at once.
package fsxtest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// NotRegular returns a link to /dev/zero and a FIFO, both named *.jsonl
// in a temporary folder, and /dev/zero itself.
func NotRegular(t testing.TB) []string {
	t.Helper()
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{link, fifo, "/dev/zero"}
}
