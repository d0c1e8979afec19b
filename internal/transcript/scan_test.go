package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestBrokenInputAndResume reads a file with every kind of damage, then
// appends to it and resumes from the cursor.
func TestBrokenInputAndResume(t *testing.T) {
	lines := []string{
		"\xef\xbb\xbf" + userLine("u1", "after a byte order mark"),
		userLine("u2", "CRLF") + "\r",
		"",
		" \t",
		"this is not JSON",
		userLine("u3", strings.Repeat("x", 10<<20)),
		"{\"type\":\"user\",\"uuid\":\"u4\",\"message\":{\"content\":\"bad \xff\xfe UTF-8\"}}",
		`{"type":"user","uuid":"u5","isMeta":"yes"}`,
	}
	torn := `{"type":"user","uuid":"u6","mess`
	data := strings.Join(lines, "\n") + "\n" + torn
	offset := func(line int) int64 { // of a 1-based line
		return int64(len(strings.Join(lines[:line-1], "\n")) + 1)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}

	f, err := ReadFile(path, Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	wantRecs := []struct {
		uuid string
		line int
	}{{"u1", 1}, {"u2", 2}, {"u3", 6}, {"u4", 7}, {"u5", 8}}
	if len(f.Records) != len(wantRecs) {
		t.Fatalf("records %s, want %v", ids(f.Records), wantRecs)
	}
	for i, w := range wantRecs {
		r := f.Records[i]
		at := int64(0)
		if w.line > 1 {
			at = offset(w.line)
		}
		if r.UUID != w.uuid || r.Line != w.line || r.Offset != at || string(r.Raw) != lines[w.line-1] {
			t.Errorf("record %d: %s at line %d byte %d, want %s at line %d byte %d", i, r.UUID, r.Line, r.Offset, w.uuid, w.line, at)
		}
	}
	if got := f.Records[2].Message.Content.String; len(got) != 10<<20 {
		t.Errorf("the 10 MB line decoded to %d bytes", len(got))
	}
	if got := f.Records[3].Message.Content.String; got != "bad \ufffd\ufffd UTF-8" {
		t.Errorf("invalid UTF-8 decoded to %q", got)
	}
	tornAt := int64(len(data) - len(torn))
	wantProblems := []Problem{
		{Kind: Invalid, Line: 5, Offset: offset(5)},
		{Kind: BadField, Line: 8, Offset: offset(8)},
		{Kind: Unterminated, Line: 9, Offset: tornAt},
	}
	checkProblems(t, f.Problems, wantProblems)
	if f.Next != (Cursor{Offset: tornAt, Line: 8}) {
		t.Errorf("next = %+v, want the start of the torn line: {%d 8}", f.Next, tornAt)
	}

	// The writer finishes the torn line and adds one more.
	appendFile(t, path, `sage":{"content":"done"}}`+"\n"+userLine("u7", "after")+"\n")
	g, err := ReadFile(path, f.Next)
	if err != nil {
		t.Fatal(err)
	}
	if ids(g.Records) != "u6 u7" || g.Records[0].Line != 9 || g.Records[0].Offset != tornAt || g.Records[1].Line != 10 {
		t.Errorf("resumed: %s at lines %d, %d", ids(g.Records), g.Records[0].Line, g.Records[1].Line)
	}
	if len(g.Problems) > 0 {
		t.Errorf("resumed with problems: %v", g.Problems)
	}
	if st, _ := os.Stat(path); g.Next != (Cursor{Offset: st.Size(), Line: 10}) {
		t.Errorf("next = %+v, want the end", g.Next)
	}
}

func checkProblems(t *testing.T, got, want []Problem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("problems = %v, want %v", got, want)
	}
	for i := range want {
		g := got[i]
		if g.Kind != want[i].Kind || g.Line != want[i].Line || g.Offset != want[i].Offset || g.Err == nil {
			t.Errorf("problem %d = %v, want %s at line %d byte %d", i, g, want[i].Kind, want[i].Line, want[i].Offset)
		}
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestScannerReads(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		uuids    string
		next     Cursor
		problems []Problem
	}{
		{"empty", "", "", Cursor{}, nil},
		{"blank lines", "\n\r\n  \n", "", Cursor{6, 3}, nil},
		{"blank unterminated tail", userLine("a", "x") + "\n  ", "a", Cursor{int64(len(userLine("a", "x"))) + 1, 1}, nil},
		{"only a torn line", `{"ty`, "", Cursor{}, []Problem{{Kind: Unterminated, Line: 1}}},
		{"not objects", "[]\nnull\n\"s\"\n", "", Cursor{12, 3}, []Problem{{Kind: Invalid, Line: 1}, {Kind: Invalid, Line: 2, Offset: 3}, {Kind: Invalid, Line: 3, Offset: 8}}},
		{"a byte order mark on a later line", `{"uuid":"a"}` + "\n\xef\xbb\xbf" + `{"uuid":"b"}` + "\n", "a b", Cursor{29, 2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte per read: lines are always assembled across reads.
			sc := NewScanner(iotest.OneByteReader(strings.NewReader(tt.data)), Cursor{})
			var recs []Record
			for sc.Scan() {
				recs = append(recs, sc.Record())
			}
			if sc.Err() != nil {
				t.Fatal(sc.Err())
			}
			if ids(recs) != tt.uuids || sc.Cursor() != tt.next {
				t.Errorf("read %q up to %+v, want %q up to %+v", ids(recs), sc.Cursor(), tt.uuids, tt.next)
			}
			checkProblems(t, sc.Problems(), tt.problems)
		})
	}
}

func TestScannerReadError(t *testing.T) {
	boom := errors.New("boom")
	sc := NewScanner(errReader{strings.NewReader(userLine("a", "x") + "\n" + `{"type"`), boom}, Cursor{})
	var recs []Record
	for sc.Scan() {
		recs = append(recs, sc.Record())
	}
	if !errors.Is(sc.Err(), boom) || ids(recs) != "a" || sc.Cursor().Line != 1 || len(sc.Problems()) != 0 {
		t.Errorf("err %v, records %s, cursor %+v, problems %v", sc.Err(), ids(recs), sc.Cursor(), sc.Problems())
	}
}

// errReader fails with err once r is exhausted.
type errReader struct {
	r   *strings.Reader
	err error
}

func (e errReader) Read(p []byte) (int, error) {
	n, _ := e.r.Read(p)
	if n == 0 {
		return 0, e.err
	}
	return n, nil
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "missing.jsonl"), Cursor{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(userLine("a", "x")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path, Cursor{Offset: 1 << 20, Line: 9})
	if !errors.Is(err, ErrShrunk) || f.Next != (Cursor{Offset: 1 << 20, Line: 9}) {
		t.Errorf("cursor past the end: %v, next %+v", err, f.Next)
	}
}
