package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
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
	// TooLong: the line is longer than ReadLimits.Line. It was skipped
	// without being held in memory.
	TooLong ProblemKind = "too-long"
)

// ReadLimits bound what one read of a transcript costs, whatever the file
// holds. Zero fields mean no limit.
type ReadLimits struct {
	// Bytes is the most read in one go: the scan stops before the line
	// that would go past it (More reports it), and resumes there.
	Bytes int64
	// Line is the longest line kept; a longer one is skipped (read in
	// pieces and dropped) and reported as a TooLong problem.
	Line int
}

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
	lines    *LineReader
	next     Cursor
	rec      Record
	problems []Problem
	err      error
	more     bool
	done     bool
}

// NewScanner returns a Scanner reading r, which must be positioned at
// from.Offset.
func NewScanner(r io.Reader, from Cursor) *Scanner {
	return NewLimitedScanner(r, from, ReadLimits{}, false)
}

// NewLimitedScanner is NewScanner within limits. midLine says from is
// inside a line (a long line a limited scan was skipping when it
// stopped): the rest of that line is skipped first.
func NewLimitedScanner(r io.Reader, from Cursor, lim ReadLimits, midLine bool) *Scanner {
	return &Scanner{lines: NewLineReader(r, lim, midLine), next: from}
}

// Scan advances to the next record, and reports false at the end of the
// input or on a read error.
func (s *Scanner) Scan() bool {
	for !s.done {
		at := s.next
		line, n, err := s.lines.Next()
		if err != nil {
			s.stop(at, line, err)
			return false
		}
		s.next = Cursor{Offset: at.Offset + n, Line: at.Line + 1}
		if line == nil {
			if s.lines.Long() {
				s.problems = append(s.problems, Problem{Kind: TooLong, Line: at.Line + 1, Offset: at.Offset,
					Err: fmt.Errorf("%d bytes, over the limit of a line", n)})
			}
			continue
		}
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

// More reports whether the scan stopped at ReadLimits.Bytes rather than
// at the end of the input.
func (s *Scanner) More() bool { return s.more }

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
// its writer finishes it, a later scan from the cursor reads it whole. So
// is a line cut by the byte limit. A line being skipped is consumed as far
// as it was read: the cursor then stands inside it, and the next scan
// skips the rest (a line longer than the byte limit is passed in pieces).
func (s *Scanner) stop(at Cursor, tail []byte, err error) {
	s.done = true
	if !errors.Is(err, io.EOF) {
		s.err = err
		return
	}
	s.more = s.lines.More()
	if s.lines.MidLine() {
		if s.lines.Long() {
			s.problems = append(s.problems, Problem{Kind: TooLong, Line: at.Line + 1, Offset: at.Offset,
				Err: errors.New("over the limit of a line")})
		}
		s.next = s.lines.End(at)
		return
	}
	if !s.more && !isBlank(tail) {
		s.problems = append(s.problems, Problem{Kind: Unterminated, Line: at.Line + 1, Offset: at.Offset, Err: errNoNewline})
	}
}

// MidLine reports whether the scan stopped inside a line it was skipping:
// a scan resuming from Cursor must start with NewLimitedScanner's midLine.
func (s *Scanner) MidLine() bool { return s.lines.MidLine() }

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
	More     bool   // the read stopped at ReadLimits.Bytes, before the end
}

// ErrShrunk is returned by ReadFile when the file is shorter than the
// cursor: it was truncated or replaced, and must be read again from the
// zero Cursor. (A file replaced by a longer one cannot be told apart from
// one appended to: whoever rewrites a transcript resets its cursors.)
var ErrShrunk = errors.New("transcript is shorter than the cursor")

// ReadFile reads the records of the transcript at path from cursor from
// on: ReadFileLimited without limits.
func ReadFile(path string, from Cursor) (*File, error) {
	return ReadFileLimited(path, from, ReadLimits{})
}

// ReadFileLimited reads the records of the transcript at path from cursor
// from on, within lim (zero: no limit). The file must be a regular file, not
// reached through a symbolic link (fsx.OpenRegular): a transcript path
// comes from hook input, and a FIFO or /dev/zero must cost nothing. The
// error is about the file, never its content (that is reported in
// Problems): on a read error, the records read before it are returned with
// it, and Next is where they end.
//
// A cursor may stand inside a line, where a limited read stopped while
// skipping a line over lim.Line: the rest of that line is skipped.
func ReadFileLimited(path string, from Cursor, lim ReadLimits) (*File, error) {
	f, st, err := fsx.OpenRegular(path)
	if err != nil {
		return &File{Next: from}, err
	}
	defer f.Close()
	if st.Size() < from.Offset {
		return &File{Next: from}, fmt.Errorf("%s: %w (%d bytes, cursor at %d)", path, ErrShrunk, st.Size(), from.Offset)
	}
	mid, err := InsideLine(f, from.Offset)
	if err != nil {
		return &File{Next: from}, err
	}
	if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
		return &File{Next: from}, err
	}
	out := &File{}
	sc := NewLimitedScanner(f, from, lim, mid)
	for sc.Scan() {
		out.Records = append(out.Records, sc.Record())
	}
	out.Problems, out.Next, out.More = sc.Problems(), sc.Cursor(), sc.More()
	return out, sc.Err()
}

// InsideLine reports whether offset is inside a line of f rather than at
// the start of one (the byte before it is not a '\n').
func InsideLine(f io.ReaderAt, offset int64) (bool, error) {
	if offset == 0 {
		return false, nil
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], offset-1); err != nil {
		return false, err
	}
	return b[0] != '\n', nil
}
