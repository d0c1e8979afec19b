package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"258c7280-ae70-4798-800f-63464d01a85d", "abc", "a.b_c-1"} {
		if err := ValidSessionID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, ".hidden", "-rf", "a..b", "a\x00b", "ü", string(make([]byte, 129))} {
		if ValidSessionID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestAppendAndReadFromCursor(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		if err := Append(dir, "s1", ctxkeep.Event{Time: now, Event: "PostToolUse", Tool: "Bash", Bytes: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	path, _ := Path(dir, "s1")
	st, _ := os.Stat(path)
	d, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o600 || d.Mode().Perm() != 0o700 {
		t.Errorf("modes: %v %v", st.Mode().Perm(), d.Mode().Perm())
	}
	var got []ctxkeep.Event
	next, bad, err := Read(path, 0, func(r ctxkeep.Event) error { got = append(got, r); return nil })
	if err != nil || bad != 0 || len(got) != 3 || next != st.Size() || got[2].Bytes != 2 || !got[0].Time.Equal(now) {
		t.Fatalf("Read = %d records, next %d (size %d), bad %d, err %v", len(got), next, st.Size(), bad, err)
	}

	// A torn tail and a garbage line: the garbage is skipped, the tail waits.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("garbage\n{\"ev\":\"Stop\",\"t\":\"2026-11-21T12:00:00Z\"")
	f.Close()
	got = nil
	next2, bad, err := Read(path, next, func(r ctxkeep.Event) error { got = append(got, r); return nil })
	if err != nil || bad != 1 || len(got) != 0 || next2 != next+int64(len("garbage\n")) {
		t.Fatalf("second Read: %d records, bad %d, next %d, err %v", len(got), bad, next2, err)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(",\"bytes\":1,\"us\":1,\"out\":\"ok\"}\n")
	f.Close()
	got = nil
	if _, _, err := Read(path, next2, func(r ctxkeep.Event) error { got = append(got, r); return nil }); err != nil || len(got) != 1 || got[0].Event != "Stop" {
		t.Fatalf("completed tail: %v %v", got, err)
	}
}

func TestAppendRefusesBadSession(t *testing.T) {
	dir := t.TempDir()
	if err := Append(dir, "../escape", ctxkeep.Event{Event: "Stop"}); err == nil {
		t.Fatal("accepted a traversal session id")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.jsonl")); err == nil {
		t.Fatal("wrote outside the journal folder")
	}
}

func TestConcurrentAppendsNeverInterleave(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				Append(dir, "s", ctxkeep.Event{Event: "PreToolUse", Tool: fmt.Sprintf("w%d-%d", w, i), Cwd: string(make([]byte, 300))})
			}
		}()
	}
	wg.Wait()
	path, _ := Path(dir, "s")
	seen := map[string]bool{}
	_, bad, err := Read(path, 0, func(r ctxkeep.Event) error { seen[r.Tool] = true; return nil })
	if err != nil || bad != 0 || len(seen) != 16*200 {
		t.Fatalf("read %d distinct records, %d bad, err %v", len(seen), bad, err)
	}
}

func TestSessions(t *testing.T) {
	dir := t.TempDir()
	Append(dir, "a", ctxkeep.Event{Event: "Stop"})
	Append(dir, "b", ctxkeep.Event{Event: "Stop"})
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600)
	ids, err := Sessions(dir)
	if err != nil || len(ids) != 2 {
		t.Fatalf("Sessions = %v, %v", ids, err)
	}
	if ids, err := Sessions(filepath.Join(dir, "missing")); err != nil || ids != nil {
		t.Fatalf("missing dir: %v %v", ids, err)
	}
}
