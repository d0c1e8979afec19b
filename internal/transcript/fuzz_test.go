package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseLine: no line makes the reader panic; a line that parses keeps
// its bytes unchanged in Raw; every helper accepts whatever record came
// out; and a scan consumes whole lines only.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		userLine("u", "hi"), useLine("a", "m", "t", "Bash"), resultLine("r", "t", "out"),
		boundary("b", `,"preservedSegment":{"headUuid":"b","anchorUuid":"b","tailUuid":"b"}`), summary("s"),
		`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}}`,
		"\xef\xbb\xbf{}\r", "{\"a\":\"\xff\"}", `{"type":"user","isMeta":"yes"}`, `[]`, `null`, `{`, "",
	} {
		f.Add([]byte(s))
	}
	addRealLines(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseLine(line)
		if _, ok := errors.AsType[*FieldError](err); err != nil && !ok {
			if r.Raw != nil || r.Type != "" {
				t.Fatalf("a record with %v", err)
			}
		} else {
			if !bytes.Equal(r.Raw, line) {
				t.Fatalf("Raw = %q, want %q", r.Raw, line)
			}
			exercise([]Record{r})
		}
		sc := NewScanner(bytes.NewReader(line), Cursor{})
		var recs []Record
		for sc.Scan() {
			recs = append(recs, sc.Record())
		}
		exercise(recs)
		if c := sc.Cursor().Offset; c > int64(len(line)) || c > 0 && line[c-1] != '\n' {
			t.Fatalf("cursor %d is not after a whole line", c)
		}
	})
}

func exercise(recs []Record) {
	Responses(recs)
	ToolCalls(recs)
	Compactions(recs)
	_, _ = Live(recs)
	Turns(recs)
	CurrentContext(recs)
}

// addRealLines seeds the fuzzer with short lines of the real transcripts,
// when they are there.
func addRealLines(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(dataDir, "cc-sessions-*", "*.jsonl"))
	for _, path := range paths {
		file, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file) // stops at the first line over 64 KiB: seeds are short lines
		for n := 0; sc.Scan() && n < 20; {
			if len(sc.Bytes()) < 4096 {
				f.Add(bytes.Clone(sc.Bytes()))
				n++
			}
		}
		file.Close()
	}
}
