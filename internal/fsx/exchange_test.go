package fsx

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A writer that takes no lock renames its version over the file right
// after the last look found it unchanged, just before the replacement:
// the rename-based replacement of WriteAtomicChecked loses that version;
// ReplaceVerified gives it back (ErrReplacedMeanwhile), the writer's
// version in place, so that the caller starts again from it. A writer
// that rewrites the file in place at that moment is caught the same way.
func TestReplaceVerifiedKeepsAWriteInTheWindow(t *testing.T) {
	for _, inPlace := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(path, []byte(`{"a":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
		was, _ := os.Stat(path)
		theirs := func() {
			if inPlace {
				os.WriteFile(path, []byte(`{"a":1,"theirs":true}`), 0o600)
				return
			}
			os.WriteFile(path+".writer", []byte(`{"a":1,"theirs":true}`), 0o600)
			os.Rename(path+".writer", path)
		}
		looks := 0
		same := func(p string) (bool, error) {
			data, err := os.ReadFile(p)
			looks++
			if looks == 1 {
				defer theirs() // the window: after the last look, before the replacement
			}
			return string(data) == `{"a":1}`, err
		}
		ours := func(w io.Writer) error { _, err := w.Write([]byte(`{"a":1,"ours":true}`)); return err }

		err := ReplaceVerified(path, 0o600, was, ours, same)
		if got, _ := os.ReadFile(path); !errors.Is(err, ErrReplacedMeanwhile) || string(got) != `{"a":1,"theirs":true}` {
			t.Errorf("in place %v: ReplaceVerified = %v, the file holds %s; want the writer's version back and ErrReplacedMeanwhile", inPlace, err, got)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".settings.json.tmp-*")); len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}

		// The same window with a check-then-rename: the writer's version is
		// lost (what ApplyFile did before).
		os.WriteFile(path, []byte(`{"a":1}`), 0o600)
		looks = 0
		WriteAtomicChecked(path, 0o600, ours, func(*os.File) error {
			if ok, err := same(path); !ok || err != nil {
				return errors.New("changed")
			}
			return nil
		})
		if got, _ := os.ReadFile(path); !inPlace && strings.Contains(string(got), "theirs") {
			t.Errorf("check-then-rename kept the writer's version: the test no longer shows the window")
		}
	}
}

// Two other versions at once: one replaces the file right after the last
// look, another while the new content is in place (a writer that read
// before). The newest ends up in place, the one before it beside it;
// nothing is lost.
func TestReplaceVerifiedKeepsBothVersions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte("v0"), 0o600)
	put := func(content string) {
		os.WriteFile(path+".writer", []byte(content), 0o600)
		os.Rename(path+".writer", path)
	}
	looks := 0
	// No os.FileInfo: every look goes through the function, where the test
	// writes.
	err := ReplaceVerified(path, 0o600, nil, func(w io.Writer) error { _, err := w.Write([]byte("ours")); return err },
		func(p string) (bool, error) {
			looks++
			data, err := os.ReadFile(p)
			switch looks {
			case 1:
				defer put("v1") // after the last look
			case 2:
				defer put("v2") // while ours is in place
			}
			return string(data) == "v0", err
		})
	got, _ := os.ReadFile(path)
	kept, _ := filepath.Glob(path + ".ctxkeep-conflict-*")
	if !errors.Is(err, ErrConflictKept) || string(got) != "v2" || len(kept) != 1 {
		t.Fatalf("ReplaceVerified = %v; the file holds %q, %d copies kept; want v2 in place and v1 kept", err, got, len(kept))
	}
	if data, _ := os.ReadFile(kept[0]); string(data) != "v1" || !strings.Contains(err.Error(), kept[0]) {
		t.Errorf("kept %q in %s; error %v", data, kept[0], err)
	}
}

// A file that did not exist is created only if it still does not.
func TestReplaceVerifiedCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.json")
	write := func(w io.Writer) error { _, err := w.Write([]byte("ours")); return err }
	if err := ReplaceVerified(path, 0o600, nil, write, func(string) (bool, error) { return true, nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "ours" {
		t.Fatalf("created %q", got)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}
