package fsx

import (
	"os"
	"path/filepath"
	"testing"
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
