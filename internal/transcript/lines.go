package transcript

import (
	"bufio"
	"errors"
	"io"
)

// LineReader reads a transcript's lines within ReadLimits, holding at most
// one line (of at most ReadLimits.Line bytes) in memory: a longer line is
// read in pieces and dropped. The Scanner reads through one; so does the
// context monitor, which decodes only the lines it needs.
type LineReader struct {
	r       *bufio.Reader
	limited *io.LimitedReader // when ReadLimits.Bytes is set
	maxLine int
	midLine bool  // inside a line being skipped
	long    bool  // the last line Next returned was skipped as too long
	tail    int64 // bytes of a skipped line consumed when the input ended
}

// NewLineReader returns a LineReader of r within lim. midLine says r
// starts inside a line (where a limited read stopped while skipping a
// long line): the rest of that line is skipped first.
func NewLineReader(r io.Reader, lim ReadLimits, midLine bool) *LineReader {
	l := &LineReader{maxLine: lim.Line, midLine: midLine}
	if lim.Bytes > 0 {
		l.limited = &io.LimitedReader{R: r, N: lim.Bytes}
		r = l.limited
	}
	l.r = bufio.NewReaderSize(r, 64<<10)
	return l
}

// Next returns the next whole line, with its '\n', and the bytes it took.
// The line is nil when it was skipped (Long says whether it was found too
// long now, or was the rest of one found before). At the end of the input
// (or of ReadLimits.Bytes) the error is io.EOF and line is the
// unterminated rest, if any, which is not consumed; but the part of a line
// being skipped is (see End).
func (l *LineReader) Next() (line []byte, n int64, err error) {
	skipped := l.midLine
	l.long = false
	for {
		frag, err := l.r.ReadSlice('\n')
		n += int64(len(frag))
		if !skipped && l.maxLine > 0 && len(line)+len(frag) > l.maxLine {
			skipped, line, l.long = true, nil, true
		}
		if !skipped {
			line = append(line, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			l.midLine = skipped && n > 0
			if l.midLine {
				l.tail = n
			}
			return line, n, err
		}
		l.midLine = false
		return line, n, nil
	}
}

// Long reports whether the line Next just returned nil for was found too
// long by this reader (rather than being the rest of one skipped before).
func (l *LineReader) Long() bool { return l.long }

// More reports whether the input ended at ReadLimits.Bytes rather than at
// its end.
func (l *LineReader) More() bool { return l.limited != nil && l.limited.N == 0 }

// End is where a reader that stopped at io.EOF leaves off, from the cursor
// of the last whole line: inside the line being skipped, past what of it
// was read, or at that cursor. MidLine then says which.
func (l *LineReader) End(at Cursor) Cursor {
	if l.midLine {
		return Cursor{Offset: at.Offset + l.tail, Line: at.Line}
	}
	return at
}

// MidLine reports whether the reader stopped inside a line it was
// skipping: whoever resumes from End must say so to NewLineReader.
func (l *LineReader) MidLine() bool { return l.midLine }
