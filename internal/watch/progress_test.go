package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var spotterFiles = realdata.SpotterAll

func assistant(id string, total int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":"u-%s","timestamp":"2026-11-21T10:00:00Z","message":{"id":%q,"model":"claude-opus-5-5","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":5}}}`,
		id, id, total-15)
}

const boundary = `{"type":"system","subtype":"compact_boundary","uuid":"b1","timestamp":"2026-11-21T11:00:00Z","compactMetadata":{"trigger":"auto","preTokens":170000,"postTokens":4000}}`

func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAdvanceIncremental: a monitor that reads a little at a time, with
// a line half written at some point, ends where a full read ends.
func TestAdvanceIncremental(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var p Progress
	step := func(want int64, compacted bool) {
		t.Helper()
		if err := p.Advance(path); err != nil {
			t.Fatal(err)
		}
		if p.Usage.Tokens != want || p.Usage.Compacted != compacted {
			t.Fatalf("usage %+v, want %d (compacted %v)", p.Usage, want, compacted)
		}
	}
	writeLines(t, path, `{"type":"user","message":{"role":"user","content":"hi"}}`, assistant("m1", 20_000))
	step(20_000, false)
	writeLines(t, path, assistant("m2", 30_000))
	// A response still being written is left for later.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	line := assistant("m3", 40_000)
	f.WriteString(line[:50])
	step(30_000, false)
	f.WriteString(line[50:] + "\n")
	f.Close()
	step(40_000, false)
	writeLines(t, path, boundary)
	step(4000, true)
	if p.Compactions != 1 {
		t.Errorf("compactions = %d", p.Compactions)
	}
	writeLines(t, path, assistant("m4", 9000))
	step(9000, false)

	// A transcript replaced by a shorter one is read again from the start.
	if err := os.WriteFile(path, []byte(assistant("n1", 1234)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	step(1234, false)
	if p.Compactions != 0 {
		t.Errorf("after a rewrite: compactions = %d", p.Compactions)
	}
}

// TestAdvanceOnRealSessions: reading a real session in pieces of any size
// gives the usage the transcript package computes from all of it, and
// reading it backwards from the end (a first read of a large file) gives
// the same.
func TestAdvanceOnRealSessions(t *testing.T) {
	for _, file := range spotterFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := transcript.ReadFile(file, transcript.Cursor{})
			if err != nil {
				t.Fatal(err)
			}
			want := transcript.CurrentContext(f.Records)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}

			path := filepath.Join(t.TempDir(), "s.jsonl")
			var p Progress
			for off := 0; off < len(data); off += 300_000 { // cuts lines anywhere
				end := min(off+300_000, len(data))
				fh, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
				fh.Write(data[off:end])
				fh.Close()
				if err := p.Advance(path); err != nil {
					t.Fatal(err)
				}
			}
			if !sameUsage(p.Usage, want) {
				t.Errorf("in pieces: %+v, want %+v", p.Usage, want)
			}
			if p.Cursor.Offset != int64(len(data)) || p.Compactions != len(transcript.Compactions(f.Records)) {
				t.Errorf("cursor %+v, compactions %d", p.Cursor, p.Compactions)
			}

			var back Progress
			if err := back.tail(mustOpen(t, file), int64(len(data)), DefaultReadLimits); err != nil {
				t.Fatal(err)
			}
			if !sameUsage(back.Usage, want) || back.Cursor.Offset != int64(len(data)) {
				t.Errorf("backwards: %+v at %d, want %+v", back.Usage, back.Cursor.Offset, want)
			}
		})
	}
}

func sameUsage(a, b ctxkeep.Usage) bool {
	a.Timestamp, b.Timestamp = time.Time{}, time.Time{}
	return a == b
}

func mustOpen(t *testing.T, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestTailAfterCompaction: read backwards, a compaction with no response
// since gives its postTokens and keeps the model of the response before.
func TestTailAfterCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	big := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", tailFrom) + `"}}`
	writeLines(t, path, assistant("m1", 150_000), big, boundary, `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}`)
	fh, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	fh.WriteString(`{"type":"user","message":{"role":"user","content":"half`) // still being written
	fh.Close()
	var p Progress
	if err := p.Advance(path); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	want := ctxkeep.Usage{Tokens: 4000, InputTokens: 4000, Model: "claude-opus-5-5", Compacted: true}
	if !sameUsage(p.Usage, want) || p.Cursor.Offset >= st.Size() {
		t.Errorf("usage %+v, cursor %d of %d", p.Usage, p.Cursor.Offset, st.Size())
	}
}

func TestCross(t *testing.T) {
	levels := []int{70, 80, 90}
	var s WarnState
	steps := []struct {
		pct         float64
		compactions int
		want        int
	}{
		{30, 0, 0}, {70, 0, 70}, {75, 0, 0}, {95, 0, 90}, {85, 0, 0}, {99, 0, 0},
		{10, 1, 0}, {81, 1, 80}, {82, 1, 0},
	}
	for i, st := range steps {
		s.Compactions = st.compactions
		got, ok := s.Cross(levels, st.pct)
		if got != st.want || ok != (st.want > 0) {
			t.Errorf("step %d (%.0f%%): got %d %v, want %d", i, st.pct, got, ok, st.want)
		}
	}
}

func TestStateRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "watch", "s.json")
	in := WarnState{Progress: Progress{Cursor: transcript.Cursor{Offset: 42, Line: 3}, Compactions: 1}, Cycle: 1, Warned: []int{70}}
	if err := Save(path, &in); err != nil {
		t.Fatal(err)
	}
	var out WarnState
	if err := Load(path, &out); err != nil || out.Cursor != in.Cursor || out.Cycle != 1 || len(out.Warned) != 1 {
		t.Fatalf("got %+v, %v", out, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	os.WriteFile(path, []byte("{broken"), 0o600)
	var again WarnState
	if err := Load(path, &again); err != nil || again.Cursor.Offset != 0 {
		t.Errorf("a damaged state must read as new: %+v, %v", again, err)
	}
}
