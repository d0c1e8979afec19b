package logfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAppendAndSince(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "ctxkeep.log")
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, msg := range []string{"old", "panic: boom\ngoroutine 1\n", "third", "fourth"} {
		if err := Append(path, t0.Add(time.Duration(i)*time.Hour), msg); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	got, err := Since(path, t0.Add(time.Hour), 2)
	if err != nil || len(got) != 2 || got[0].Message != "third" || got[1].Message != "fourth" {
		t.Fatalf("Since = %+v, %v", got, err)
	}
	all, _ := Since(path, t0, 10)
	if len(all) != 4 || !strings.Contains(all[1].Message, "panic: boom ⏎ goroutine 1") {
		t.Fatalf("multi-line message not folded: %+v", all)
	}
}

func TestRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctxkeep.log")
	big := strings.Repeat("x", 4096)
	for range MaxSize/4096 + 2 {
		Append(path, time.Now(), big)
	}
	if _, err := os.Stat(path + ".1"); err != nil {
		t.Fatalf("not rotated: %v", err)
	}
	if st, err := os.Stat(path); err == nil && st.Size() > MaxSize {
		t.Fatalf("log still %d bytes", st.Size())
	}
}
