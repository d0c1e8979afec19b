package fsx

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFileAtomic(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != content {
			t.Fatalf("content = %q", got)
		}
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("wrote into a missing folder")
	}
}

func TestAppendCreatesPrivateFolderAndFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "log")
	for _, line := range []string{"one\n", "two\n"} {
		if err := Append(path, []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	dir, _ := os.Stat(filepath.Dir(path))
	if string(got) != "one\ntwo\n" || st.Mode().Perm() != FilePerm || dir.Mode().Perm() != DirPerm {
		t.Fatalf("content %q, modes %v %v", got, st.Mode().Perm(), dir.Mode().Perm())
	}
}

// A check that fails calls the replacement off: the file keeps its
// content and no temporary file is left; one that passes sees the new
// content already written, and may add to it.
func TestWriteAtomicChecked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	refuse := errors.New("changed")
	if err := WriteAtomicChecked(path, 0o600, write, func(*os.File) error { return refuse }); !errors.Is(err, refuse) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("content %q after a refused check", got)
	}
	err := WriteAtomicChecked(path, 0o600, write, func(tmp *os.File) error {
		_, err := tmp.WriteString("+late")
		return err
	})
	if got, _ := os.ReadFile(path); err != nil || string(got) != "new+late" {
		t.Fatalf("content %q, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// A lock folder that cannot be removed (not empty: not a lock) is waited
// for, not fought over forever: LockFolder gives up with ErrLockBusy.
func TestLockFolderGivesUp(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "settings.json.lock")
	if err := os.MkdirAll(filepath.Join(lock, "something"), 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(lock, old, old)
	if _, err := LockFolder(lock, time.Second, 0); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("err = %v, want ErrLockBusy", err)
	}
}
