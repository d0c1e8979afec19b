package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Cursor is a position in a transcript: the byte offset of a line start,
// and how many lines come before it, so that line numbers stay absolute
// when reading resumes. The zero Cursor is the start of the file. A caller
// that keeps only the offset gets line numbers counted from there.
type Cursor struct {
	Offset int64
	Line   int
}

// ProblemKind says what was wrong with a line and what became of it.
type ProblemKind string

const (
	// Invalid: not a JSON object. The line was consumed and skipped.
	Invalid ProblemKind = "invalid"
	// Unterminated: the last line has no '\n' yet: a write in progress or
	// a torn write. The line was not consumed; the cursor stops before it.
	Unterminated ProblemKind = "unterminated"
	// BadField: a field had an unexpected type. The record was kept with
	// that field zero.
	BadField ProblemKind = "field"
)

// Problem reports a line that was skipped, left for later, or read only
// in part: see ProblemKind. Problems never stop reading.
type Problem struct {
	Kind   ProblemKind
	Line   int   // 1-based
	Offset int64 // of the line's first byte
	Err    error
}

func (p Problem) Error() string {
	return fmt.Sprintf("line %d (byte %d): %s: %v", p.Line, p.Offset, p.Kind, p.Err)
}

var errNoNewline = errors.New("no newline at end of file")

// Scanner reads a transcript's records one line at a time, holding one
// line in memory: lines have no length limit (a tool result can make a
// line of many megabytes). Use it like bufio.Scanner:
//
//	sc := transcript.NewScanner(f, cursor)
//	for sc.Scan() {
//		rec := sc.Record()
//		…
//	}
//	cursor = sc.Cursor() // resume here once more has been appended
//
// Blank lines are skipped. Lines that are not records are reported by
// Problems and never stop the scan; only a read error does (Err).
type Scanner struct {
	r        *bufio.Reader
	next     Cursor
	rec      Record
	problems []Problem
	err      error
	done     bool
}

// NewScanner returns a Scanner reading r, which must be positioned at
// from.Offset.
func NewScanner(r io.Reader, from Cursor) *Scanner {
	return &Scanner{r: bufio.NewReaderSize(r, 64<<10), next: from}
}

// Scan advances to the next record, and reports false at the end of the
// input or on a read error.
func (s *Scanner) Scan() bool {
	for !s.done {
		at := s.next
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			s.stop(at, line, err)
			return false
		}
		s.next = Cursor{Offset: at.Offset + int64(len(line)), Line: at.Line + 1}
		body := line[:len(line)-1]
		if isBlank(body) {
			continue
		}
		if s.parse(at, body) {
			return true
		}
	}
	return false
}

// parse decodes the line found at at, and reports whether it is a record.
func (s *Scanner) parse(at Cursor, body []byte) bool {
	rec, err := ParseLine(body)
	if err != nil {
		kind := Invalid
		if _, ok := errors.AsType[*FieldError](err); ok {
			kind = BadField
		}
		s.problems = append(s.problems, Problem{Kind: kind, Line: at.Line + 1, Offset: at.Offset, Err: err})
		if kind == Invalid {
			return false
		}
	}
	rec.Line, rec.Offset = at.Line+1, at.Offset
	s.rec = rec
	return true
}

// stop ends the scan. An unterminated last line is left unconsumed: once
// its writer finishes it, a later scan from the cursor reads it whole.
func (s *Scanner) stop(at Cursor, tail []byte, err error) {
	s.done = true
	if !errors.Is(err, io.EOF) {
		s.err = err
		return
	}
	if !isBlank(tail) {
		s.problems = append(s.problems, Problem{Kind: Unterminated, Line: at.Line + 1, Offset: at.Offset, Err: errNoNewline})
	}
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// Record returns the record the last successful Scan read. Its Raw is its
// own; nothing is reused by the next Scan.
func (s *Scanner) Record() Record { return s.rec }

// Cursor returns the position after the last complete line read: where to
// resume after more lines are appended.
func (s *Scanner) Cursor() Cursor { return s.next }

// Problems returns the lines that were not read as whole records so far.
func (s *Scanner) Problems() []Problem { return s.problems }

// Err returns the read error that ended the scan, or nil at the end of the
// input.
func (s *Scanner) Err() error { return s.err }

// File is what ReadFile read from a transcript.
type File struct {
	Records  []Record
	Problems []Problem
	Next     Cursor // where to resume reading
}

// ErrShrunk is returned by ReadFile when the file is shorter than the
// cursor: it was truncated or replaced, and must be read again from the
// zero Cursor. (A file replaced by a longer one cannot be told apart from
// one appended to: whoever rewrites a transcript resets its cursors.)
var ErrShrunk = errors.New("transcript is shorter than the cursor")

// ReadFile reads the records of the transcript at path from cursor from
// on. The error is about the file, never its content (that is reported in
// Problems): on a read error, the records read before it are returned with
// it, and Next is where they end.
func ReadFile(path string, from Cursor) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return &File{Next: from}, err
	}
	defer f.Close()
	if err := seek(f, from.Offset); err != nil {
		return &File{Next: from}, err
	}
	out := &File{}
	sc := NewScanner(f, from)
	for sc.Scan() {
		out.Records = append(out.Records, sc.Record())
	}
	out.Problems, out.Next = sc.Problems(), sc.Cursor()
	return out, sc.Err()
}

func seek(f *os.File, offset int64) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() < offset {
		return fmt.Errorf("%s: %w (%d bytes, cursor at %d)", f.Name(), ErrShrunk, st.Size(), offset)
	}
	_, err = f.Seek(offset, io.SeekStart)
	return err
}
