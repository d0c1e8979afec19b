package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A backlog larger than one call may read is read over several calls,
// each at most the limit, the cursor saved between them, and the usage at
// the end is the transcript's.
func TestAdvanceReadsABacklogInPieces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeLines(t, path, assistant("m0", 1_000))
	var p Progress
	lim := transcript.ReadLimits{Bytes: 4 << 10, Line: 2 << 10}
	if err := p.AdvanceWithin(path, lim); err != nil || p.Usage.Tokens != 1_000 {
		t.Fatalf("first read: %+v, %v", p.Usage, err)
	}
	for i := range 100 { // about 40 KB appended at once
		writeLines(t, path, `{"type":"user","message":{"role":"user","content":"`+strings.Repeat("x", 100)+`"}}`, assistant("m"+string(rune('a'+i%26))+string(rune('a'+i/26)), 2_000+i))
	}
	size := fileSize(t, path)
	calls := 0
	for p.Cursor.Offset < size {
		before := p.Cursor.Offset
		if err := p.AdvanceWithin(path, lim); err != nil {
			t.Fatal(err)
		}
		calls++
		if read := p.Cursor.Offset - before; read <= 0 || read > lim.Bytes {
			t.Fatalf("call %d read %d bytes; want progress, at most %d", calls, read, lim.Bytes)
		}
	}
	if p.Usage.Tokens != 2_099 || calls < 8 {
		t.Fatalf("after %d calls: usage %d, want 2099 over many calls", calls, p.Usage.Tokens)
	}
}

// A line longer than the limit is skipped without being held, even when
// it is longer than a whole call's read: the cursor goes through it call
// after call, and the response after it is read.
func TestAdvanceSkipsAHugeLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeLines(t, path, assistant("m1", 10_000))
	var p Progress
	lim := transcript.ReadLimits{Bytes: 64 << 10, Line: 8 << 10}
	if err := p.AdvanceWithin(path, lim); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, `{"type":"assistant","message":{"content":"`+strings.Repeat("y", 200<<10)+`"}}`, assistant("m2", 20_000))
	for calls := 0; p.Usage.Tokens != 20_000; calls++ {
		before := p.Cursor.Offset
		if err := p.AdvanceWithin(path, lim); err != nil {
			t.Fatal(err)
		}
		if p.Cursor.Offset == before || calls > 10 {
			t.Fatalf("no progress past the huge line: cursor %+v, usage %d", p.Cursor, p.Usage.Tokens)
		}
	}
}

// A first read of a large transcript without one newline (or one
// complete response) in its last megabytes reads at most the limit
// backwards, and leaves the cursor at the end.
func TestTailIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat("z", 3<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	var p Progress
	lim := transcript.ReadLimits{Bytes: 1 << 20, Line: 64 << 10}
	if err := p.AdvanceWithin(path, lim); err != nil {
		t.Fatal(err)
	}
	if p.Cursor.Offset != 3<<20 || p.Usage.Known() {
		t.Fatalf("cursor %+v usage %+v; want the end, no usage", p.Cursor, p.Usage)
	}
	writeLines(t, path, "", assistant("m1", 5_000))
	if err := p.AdvanceWithin(path, lim); err != nil || p.Usage.Tokens != 5_000 {
		t.Fatalf("after a response was appended: %+v, %v", p.Usage, err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
