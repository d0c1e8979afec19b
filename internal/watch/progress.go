package watch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
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
}

// tailFrom is the size above which a transcript read for the first time is
// read backwards from its end: the current usage is in its last lines, and
// a 500 MB transcript must not cost a statusline half a second.
const tailFrom = 1 << 20

// DefaultReadLimits bound a read when the caller has no configuration:
// the defaults of limits.transcript_read_bytes and _line_bytes.
var DefaultReadLimits = transcript.ReadLimits{Bytes: 64 << 20, Line: 8 << 20}

// TranscriptLimits are the configured bounds of one read of a transcript.
func TranscriptLimits(cfg *config.Config) transcript.ReadLimits {
	return transcript.ReadLimits{Bytes: cfg.Limits.TranscriptReadBytes, Line: int(cfg.Limits.TranscriptLineBytes)}
}

// Advance is AdvanceWithin DefaultReadLimits.
func (p *Progress) Advance(path string) error { return p.AdvanceWithin(path, DefaultReadLimits) }

// AdvanceWithin reads the lines appended to the transcript at path since
// the cursor and updates the usage, reading at most lim.Bytes (the cursor
// goes as far as it read: the next call goes on from there) and skipping
// lines over lim.Line unread. The transcript must be a regular file, not a
// link (fsx.OpenRegular): a FIFO or /dev/zero is refused at once. A
// transcript shorter than the cursor was replaced: it is read again from
// the start. The unterminated line the client may be writing is left for
// the next call.
func (p *Progress) AdvanceWithin(path string, lim transcript.ReadLimits) error {
	f, st, err := fsx.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	size := st.Size()
	if size < p.Cursor.Offset {
		*p = Progress{}
	}
	if p.Cursor.Offset == 0 && size > tailFrom {
		return p.tail(f, size, lim)
	}
	mid, err := transcript.InsideLine(f, p.Cursor.Offset)
	if err != nil {
		return err
	}
	if _, err := f.Seek(p.Cursor.Offset, io.SeekStart); err != nil {
		return err
	}
	return p.forward(f, lim, mid)
}

// forward reads complete lines from the cursor on, within lim. Only lines
// that may set the usage are decoded: a 10 MB tool result is skipped with
// one search.
func (p *Progress) forward(r io.Reader, lim transcript.ReadLimits, midLine bool) error {
	lines := transcript.NewLineReader(r, lim, midLine)
	for {
		line, n, err := lines.Next()
		if err != nil {
			p.Cursor = lines.End(p.Cursor)
			if errors.Is(err, io.EOF) {
				return nil // an unterminated line stays for later
			}
			return err
		}
		if line != nil {
			p.take(line[:len(line)-1])
		}
		p.Cursor = transcript.Cursor{Offset: p.Cursor.Offset + n, Line: p.Cursor.Line + 1}
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
}

// tail reads a large transcript backwards, from the end to the last record
// that sets the usage (and, for a compaction, back to the response before
// it, for the model), and leaves the cursor at the end of the last complete
// line. Line numbers then count from there. It reads at most tailMax
// bytes (and lim.Bytes), skipping lines over lim.Line: with no usage found
// within them, the cursor still goes to the end, and the next call reads
// on from there.
func (p *Progress) tail(f *os.File, size int64, lim transcript.ReadLimits) error {
	budget := int64(tailMax)
	if lim.Bytes > 0 {
		budget = min(budget, lim.Bytes)
	}
	var found []transcript.Record // newest first
	end, err := scanBack(f, size, budget, lim.Line, func(line []byte) bool {
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
	if end < 0 {
		end = size // no whole line: go on from the end, skipping the rest of that one
	}
	*p = Progress{Cursor: transcript.Cursor{Offset: end}}
	for i := len(found) - 1; i >= 0; i-- {
		transcript.UpdateUsage(&p.Usage, &found[i])
	}
	return nil
}

// backChunk is how much scanBack reads at a time; tailMax the most a
// first read goes back from the end.
const (
	backChunk = 256 << 10
	tailMax   = 16 << 20
)

// scanBack calls fn with each complete line of f, last first, until fn
// returns false, the start of the file, or budget bytes read; a line
// longer than maxLine (0: no limit) is skipped without being held. It
// returns the offset just after the last complete line: where forward
// reading resumes; -1 when it found none.
func scanBack(f *os.File, size, budget int64, maxLine int, fn func(line []byte) bool) (end int64, err error) {
	var carry []byte // the start of the line cut by the previous chunk
	long := false    // carry was dropped: the line is too long
	pos := size
	end = -1
	buf := make([]byte, backChunk)
	for pos > 0 && size-pos < budget {
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
			switch {
			case end < 0:
				end = pos + int64(i) + 1 // the rest is unterminated
			case long:
			case len(line) > 0 && !fn(line):
				return end, nil
			}
			data, long = data[:i], false
		}
		carry = bytes.Clone(data)
		if maxLine > 0 && len(carry) > maxLine {
			carry, long = nil, true
		}
	}
	if pos == 0 && len(carry) > 0 && !long && end >= 0 {
		fn(carry)
	}
	return end, nil
}
