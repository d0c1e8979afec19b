package watch

import (
	"bytes"
	"errors"
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
	// Peak is the largest context size read: a session that went past its
	// configured window without compacting has a larger one (LimitsFor).
	Peak int64 `json:"peak,omitempty"`

	lines Dialect // how the transcript reads; nil for Claude Code's
}

// Dialect reads the context usage from one client's transcript lines
// (transcript.Dialect).
type Dialect = transcript.Dialect

// AdvanceIn is AdvanceWithin for a transcript in another client's dialect.
func (p *Progress) AdvanceIn(path string, d Dialect, lim transcript.ReadLimits) error {
	p.lines = d
	return p.AdvanceWithin(path, lim)
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
		*p = Progress{lines: p.lines}
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
// line. Line numbers then count from there. It reads at most tailMax
// bytes (and lim.Bytes), skipping lines over lim.Line: with no usage found
// within them, the cursor still goes to the end, and the next call reads
// on from there.
func (p *Progress) tail(f *os.File, size int64, lim transcript.ReadLimits) error {
	budget := int64(tailMax)
	if lim.Bytes > 0 {
		budget = min(budget, lim.Bytes)
	}
	if p.lines != nil {
		return p.tailIn(f, size, budget, lim.Line, p.lines)
	}
	var found []transcript.Record // newest first
	end, err := transcript.ScanBack(f, size, budget, lim.Line, func(line []byte) bool {
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
		p.Peak = max(p.Peak, p.Usage.Tokens)
	}
	return nil
}

// tailIn is tail in another dialect: the lines that matter, back to the
// one that settles the usage, are taken again in file order.
func (p *Progress) tailIn(f *os.File, size, budget int64, maxLine int, d Dialect) error {
	var found [][]byte // newest first
	end, err := transcript.ScanBack(f, size, budget, maxLine, func(line []byte) bool {
		if !d.MayMatter(line) {
			return true
		}
		found = append(found, bytes.Clone(line))
		return !d.Settles(line)
	})
	if err != nil {
		return err
	}
	if end < 0 {
		end = size
	}
	*p = Progress{Cursor: transcript.Cursor{Offset: end}, lines: d}
	for i := len(found) - 1; i >= 0; i-- {
		d.Take(&p.Usage, found[i])
		p.Peak = max(p.Peak, p.Usage.Tokens)
	}
	return nil
}

// tailMax is the most a first read goes back from the end.
const tailMax = 16 << 20
