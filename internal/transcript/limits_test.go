package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line over ReadLimits.Line is skipped and reported, the lines around it
// are read, and the cursor goes past it.
func TestReadSkipsLongLines(t *testing.T) {
	long := userLine("big", strings.Repeat("y", 100<<10))
	path := writeLines(t, userLine("u1", "a"), long, userLine("u2", "b"))
	f, err := ReadFileLimited(path, Cursor{}, ReadLimits{Line: 10 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if ids(f.Records) != "u1 u2" || f.More {
		t.Fatalf("records %s, more %t; want u1 u2 and the end", ids(f.Records), f.More)
	}
	if len(f.Problems) != 1 || f.Problems[0].Kind != TooLong || f.Problems[0].Line != 2 {
		t.Fatalf("problems %v, want line 2 too long", f.Problems)
	}
	if st, _ := os.Stat(path); f.Next.Offset != st.Size() || f.Next.Line != 3 {
		t.Fatalf("next %+v, want the end (%d bytes, 3 lines)", f.Next, st.Size())
	}
}

// A read stops before the line that would take it past ReadLimits.Bytes,
// says there is more, and the next read goes on from there: reading in
// small pieces gives every record once.
func TestReadInPieces(t *testing.T) {
	var lines []string
	for i := range 50 {
		lines = append(lines, userLine("u"+string(rune('A'+i%26))+string(rune('a'+i/26)), strings.Repeat("z", 300)))
	}
	path := writeLines(t, lines...)
	var all []Record
	var at Cursor
	calls := 0
	for {
		f, err := ReadFileLimited(path, at, ReadLimits{Bytes: 1000, Line: 1000})
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if read := f.Next.Offset - at.Offset; read > 1000 {
			t.Fatalf("one read consumed %d bytes, over the limit of 1000", read)
		}
		if len(f.Problems) > 0 {
			t.Fatalf("problems %v: a line cut by the limit is no problem", f.Problems)
		}
		all = append(all, f.Records...)
		at = f.Next
		if !f.More {
			break
		}
	}
	if len(all) != 50 || all[49].Line != 50 || calls < 15 {
		t.Fatalf("%d records in %d reads, last at line %d; want 50 in many reads", len(all), calls, all[len(all)-1].Line)
	}
}

// A line longer than a whole read is passed in pieces: each read consumes
// up to its limit (the cursor then stands inside the line), and the one
// after skips the rest of it and reads on.
func TestReadPassesALineLongerThanTheLimit(t *testing.T) {
	path := writeLines(t, userLine("u1", "a"), userLine("big", strings.Repeat("y", 10_000)), userLine("u2", "b"))
	var got []Record
	var problems []Problem
	at, calls := Cursor{}, 0
	for more := true; more; calls++ {
		f, err := ReadFileLimited(path, at, ReadLimits{Bytes: 4000, Line: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if f.Next.Offset <= at.Offset {
			t.Fatalf("read %d made no progress from %+v", calls+1, at)
		}
		got, problems, at, more = append(got, f.Records...), append(problems, f.Problems...), f.Next, f.More
	}
	if ids(got) != "u1 u2" || got[1].Line != 3 {
		t.Fatalf("records %s (u2 at line %d), want u1 u2", ids(got), got[len(got)-1].Line)
	}
	if len(problems) != 1 || problems[0].Kind != TooLong || problems[0].Line != 2 {
		t.Fatalf("problems %v, want one: line 2 too long", problems)
	}
	if calls < 3 {
		t.Errorf("%d reads: the long line was not passed in pieces", calls)
	}
}

func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
