package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("0123456789"), 0o600)
	if b, err := ReadRegular(path, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadRegular(path, 9); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	if b, err := ReadRegular(empty, 10); err != nil || len(b) != 0 {
		t.Fatalf("empty: %q, %v", b, err)
	}
	if _, err := ReadRegular(dir, 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("folder: %v", err)
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Skip(err)
	}
	if _, err := ReadRegular(link, 10); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("link: %v", err)
	}
}

// A 2 GB sparse file over the limit is refused from its size.
func TestReadRegularSparseFileOverTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse")
	os.WriteFile(path, nil, 0o600)
	if err := os.Truncate(path, 2<<30); err != nil {
		t.Skip(err)
	}
	if _, err := ReadRegular(path, 64<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

func TestReadRegularBelow(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "tool-results"), 0o700)
	inside := filepath.Join(root, "tool-results", "a.txt")
	os.WriteFile(inside, []byte("a"), 0o600)
	if b, err := ReadRegularBelow(root, inside, 10); err != nil || string(b) != "a" {
		t.Fatalf("inside: %q, %v", b, err)
	}
	for _, p := range []string{root, filepath.Join(root, "..", "x"), "/etc/passwd", filepath.Join(root, "tool-results", "..", "..", "x")} {
		if _, err := ReadRegularBelow(root, p, 10); err == nil || !strings.Contains(err.Error(), "not inside") {
			t.Errorf("%s: %v", p, err)
		}
	}
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "a.txt"), []byte("elsewhere"), 0o600)
	if err := os.Symlink(elsewhere, filepath.Join(root, "linked")); err != nil {
		t.Skip(err)
	}
	if _, err := ReadRegularBelow(root, filepath.Join(root, "linked", "a.txt"), 10); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("linked folder: %v", err)
	}
}

// A path that is not a regular file is refused with what it is, in words.
func TestNotARegularFileSaysWhat(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadRegular(dir, 1<<20); err == nil || !strings.HasSuffix(err.Error(), "is not a regular file: a folder") {
		t.Fatalf("err = %v", err)
	}
}
