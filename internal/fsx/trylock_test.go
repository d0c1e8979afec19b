//go:build unix

package fsx

import (
	"errors"
	"path/filepath"
	"testing"
)

// TryLocked does not wait for a lock held (by another open file, as
// another process holds it), and takes a free one.
func TestTryLocked(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "sub", "x.lock")
	ran := 0
	err := Locked(lock, func() error {
		return TryLocked(lock, func() error { ran++; return nil })
	})
	if !errors.Is(err, ErrLocked) || ran != 0 {
		t.Fatalf("TryLocked under a held lock = %v, ran %d times; want ErrLocked, not run", err, ran)
	}
	if err := TryLocked(lock, func() error { ran++; return nil }); err != nil || ran != 1 {
		t.Fatalf("TryLocked of a free lock = %v, ran %d", err, ran)
	}
}
