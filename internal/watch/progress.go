package watch

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Progress is how far a monitor has read a transcript and what it found:
// all the state there is, so that the next call reads only what was
// appended since. It is kept in a small JSON file between calls.
type Progress struct {
	Cursor transcript.Cursor `json:"cursor"`
	Usage  ctxkeep.Usage     `json:"usage"`
	// Compactions counts the compact boundaries read since the monitor
	// started on this transcript (those before it, when it started from
	// the end of a large file, are not counted).
	Compactions int `json:"compactions"`
	// Peak is the largest context size read: a session that went past its
	// configured window without compacting has a larger one (LimitsFor).
	Peak int64 `json:"peak,omitempty"`

	lines Dialect // how the transcript reads; nil for Claude Code's
}

// Dialect reads the context usage from one client's transcript lines, for
// a client whose transcripts are not Claude Code's (internal/codex reads
// Codex's rollouts).
type Dialect interface {
	// MayMatter reports cheaply whether a line can change the usage:
	// other lines are never decoded.
	MayMatter(line []byte) bool
	// Take updates u with one line, in file order, and reports whether
	// the line is a compaction.
	Take(u *ctxkeep.Usage, line []byte) (compaction bool)
	// Settles reports whether a line sets the usage by itself (a
	// response's usage): reading a large transcript backwards stops there.
	Settles(line []byte) bool
}

// AdvanceIn is Advance for a transcript in another client's dialect.
func (p *Progress) AdvanceIn(path string, d Dialect) error {
	p.lines = d
	return p.Advance(path)
}

// tailFrom is the size above which a transcript read for the first time is
// read backwards from its end: the current usage is in its last lines, and
// a 500 MB transcript must not cost a statusline half a second.
const tailFrom = 1 << 20

// Advance reads the lines appended to the transcript at path since the
// cursor and updates the usage. A transcript shorter than the cursor was
// replaced: it is read again from the start. The unterminated line the
// client may be writing is left for the next call.
func (p *Progress) Advance(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size < p.Cursor.Offset {
		*p = Progress{lines: p.lines}
	}
	if p.Cursor.Offset == 0 && size > tailFrom {
		return p.tail(f, size)
	}
	if _, err := f.Seek(p.Cursor.Offset, io.SeekStart); err != nil {
		return err
	}
	return p.forward(f)
}

// forward reads complete lines from the cursor on. Only lines that may set
// the usage are decoded: a 10 MB tool result is skipped with one search.
func (p *Progress) forward(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			var long []byte
			long, err = readLong(br, line)
			line = long
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil // an unterminated line stays for later
			}
			return err
		}
		p.take(line[:len(line)-1])
		p.Cursor = transcript.Cursor{Offset: p.Cursor.Offset + int64(len(line)), Line: p.Cursor.Line + 1}
	}
}

// readLong finishes a line longer than the reader's buffer.
func readLong(br *bufio.Reader, first []byte) ([]byte, error) {
	line := bytes.Clone(first)
	for {
		more, err := br.ReadSlice('\n')
		line = append(line, more...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// mayMatter reports whether a line can change the usage: an assistant
// response or a compact boundary. Other lines are never decoded.
func mayMatter(line []byte) bool {
	return bytes.Contains(line, []byte(`"assistant"`)) || bytes.Contains(line, []byte(`"compact_boundary"`))
}

// take updates the usage with one line.
func (p *Progress) take(line []byte) {
	if p.lines != nil {
		if p.lines.MayMatter(line) && p.lines.Take(&p.Usage, line) {
			p.Compactions++
		}
		p.Peak = max(p.Peak, p.Usage.Tokens)
		return
	}
	if !mayMatter(line) {
		return
	}
	rec, err := transcript.ParseLine(line)
	if err != nil && rec.Type == "" {
		return
	}
	if rec.MainThread() && rec.IsCompactBoundary() {
		p.Compactions++
	}
	transcript.UpdateUsage(&p.Usage, &rec)
	p.Peak = max(p.Peak, p.Usage.Tokens)
}

// tail reads a large transcript backwards, from the end to the last record
// that sets the usage (and, for a compaction, back to the response before
// it, for the model), and leaves the cursor at the end of the last complete
// line. Line numbers then count from there.
func (p *Progress) tail(f *os.File, size int64) error {
	if p.lines != nil {
		return p.tailIn(f, size, p.lines)
	}
	var found []transcript.Record // newest first
	end, err := transcript.ScanBack(f, size, func(line []byte) bool {
		if !mayMatter(line) {
			return true
		}
		rec, err := transcript.ParseLine(bytes.Clone(line))
		if (err != nil && rec.Type == "") || !rec.MainThread() {
			return true
		}
		switch {
		case rec.IsCompactBoundary() && len(found) == 0:
			found = append(found, rec)
			return true // go on to the response before it, for the model
		case rec.Type == transcript.TypeAssistant && rec.Message != nil && rec.Message.Model != transcript.SyntheticModel:
			found = append(found, rec)
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	*p = Progress{Cursor: transcript.Cursor{Offset: end}}
	for i := len(found) - 1; i >= 0; i-- {
		transcript.UpdateUsage(&p.Usage, &found[i])
		p.Peak = max(p.Peak, p.Usage.Tokens)
	}
	return nil
}

// tailIn is tail in another dialect: the lines that matter, back to the
// one that settles the usage, are taken again in file order.
func (p *Progress) tailIn(f *os.File, size int64, d Dialect) error {
	var found [][]byte // newest first
	end, err := transcript.ScanBack(f, size, func(line []byte) bool {
		if !d.MayMatter(line) {
			return true
		}
		found = append(found, bytes.Clone(line))
		return !d.Settles(line)
	})
	if err != nil {
		return err
	}
	*p = Progress{Cursor: transcript.Cursor{Offset: end}, lines: d}
	for i := len(found) - 1; i >= 0; i-- {
		d.Take(&p.Usage, found[i])
		p.Peak = max(p.Peak, p.Usage.Tokens)
	}
	return nil
}
