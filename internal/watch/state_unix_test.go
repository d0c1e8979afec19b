//go:build unix

package watch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSaveUnchanged checks that saving what the file already holds writes
// nothing (the same inode: no temporary file renamed over it), and that a
// change is written.
func TestSaveUnchanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st := WarnState{Cycle: 1}
	if err := Save(path, &st); err != nil {
		t.Fatal(err)
	}
	first := inode(t, path)
	if err := Save(path, &st); err != nil {
		t.Fatal(err)
	}
	if inode(t, path) != first {
		t.Error("saving an unchanged state rewrote the file")
	}
	st.Cycle = 2
	if err := Save(path, &st); err != nil {
		t.Fatal(err)
	}
	var back WarnState
	if err := Load(path, &back); err != nil || back.Cycle != 2 {
		t.Errorf("after a change, Load = %+v, %v; want Cycle 2", back, err)
	}
}

func inode(t *testing.T, path string) uint64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}
