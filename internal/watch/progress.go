package watch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
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
		*p = Progress{}
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
	var found []transcript.Record // newest first
	end, err := scanBack(f, size, func(line []byte) bool {
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

// backChunk is how much scanBack reads at a time.
const backChunk = 256 << 10

// scanBack calls fn with each complete line of f, last first, until fn
// returns false or the start of the file. It returns the offset just after
// the last complete line: where forward reading resumes.
func scanBack(f *os.File, size int64, fn func(line []byte) bool) (end int64, err error) {
	var carry []byte // the start of the line cut by the previous chunk
	pos := size
	end = -1
	buf := make([]byte, backChunk)
	for pos > 0 {
		n := int64(min(backChunk, pos))
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%s: %w", f.Name(), err)
		}
		data := append(buf[:n:n], carry...)
		for {
			i := bytes.LastIndexByte(data, '\n')
			if i < 0 {
				break
			}
			line := data[i+1:]
			if end < 0 {
				end = pos + int64(i) + 1 // the rest is unterminated
			} else if len(line) > 0 && !fn(line) {
				return end, nil
			}
			data = data[:i]
		}
		carry = bytes.Clone(data)
	}
	if end < 0 {
		return 0, nil // not one complete line
	}
	if len(carry) > 0 {
		fn(carry)
	}
	return end, nil
}
