// Package purge repairs and slims Claude Code transcripts, in ways the
// client still accepts when it resumes them (checked with Claude Code
// 2.1.330, docs/TEND.md):
//
//   - repairs: a torn last line is dropped; lines that are not JSON objects
//     are dropped; a parentUuid naming no record is pointed at the record
//     before it (the client otherwise loads only what follows the break);
//     a tool_use without a tool_result gets a synthetic error result (the
//     client otherwise drops the whole response); a tool_result without its
//     tool_use is removed (as the client does);
//   - slimming: tool results larger than a threshold are stored in
//     ctxkeep's store and replaced by a stub naming the id to get them back
//     with; thinking blocks are removed, whole, outside the last turn (a
//     block is never altered, so no signature is broken, and the API needs
//     the thinking of the turn in progress only).
//
// Lines purge does not change are copied byte for byte. Removing a line
// re-points its children at its parent, so the parent chain stays whole.
// Planning is pure (Read, then Plan): a dry run and a real run make the
// same changes. Replace writes the result behind a timestamped backup.
package purge

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Options say what a purge does.
type Options struct {
	// Threshold is the size in bytes above which a tool result's text is
	// stored and replaced by a stub.
	Threshold int
	// KeepThinking leaves thinking blocks in place.
	KeepThinking bool
	// RepairOnly makes the repairs and slims nothing.
	RepairOnly bool
	// Live says the client may still append to the transcript (a purge
	// with --force): its unterminated last line and the tool calls of its
	// last response may be in progress, and are left alone.
	Live bool
}

// MinThreshold is the smallest threshold: a stub must stay smaller than
// what it replaces, and must never be stubbed itself.
const MinThreshold = 1024

// DefaultThreshold is the threshold when none is given.
const DefaultThreshold = 5000

// Transcript is a session transcript read for purging.
type Transcript struct {
	Path      string
	SessionID string
	Data      []byte // the file as it was read
	Lines     []Line
	ModTime   time.Time
	Mode      fs.FileMode
}

// Line is one line of the file.
type Line struct {
	Raw   []byte            // as in the file, without its '\n'
	Rec   transcript.Record // when Valid; Rec.Line is the line's number
	Valid bool              // a JSON object
	Torn  bool              // the last line, without a '\n'
}

// Blank reports whether the line holds only white space.
func (l *Line) Blank() bool { return len(bytes.TrimSpace(l.Raw)) == 0 }

// ErrNotTranscript is returned by Read for a file none of whose lines is a
// transcript record: "repairing" it would drop every line.
var ErrNotTranscript = errors.New("not a Claude Code transcript")

// hasRecord reports whether some line is a transcript record.
func (t *Transcript) hasRecord() bool {
	for _, l := range t.Lines {
		if l.Valid && l.Rec.Type != "" {
			return true
		}
	}
	return false
}

// Read reads the transcript at path; a symbolic link is followed, so that
// Replace replaces the file it points to (and keeps the backup beside it).
func Read(path string) (*Transcript, error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := Parse(data)
	if !t.hasRecord() {
		return nil, fmt.Errorf("%s: %w: none of its %d line(s) is a transcript record (a JSON object with a \"type\")", path, ErrNotTranscript, len(t.Lines))
	}
	t.Path, t.ModTime, t.Mode = path, st.ModTime(), st.Mode().Perm()
	t.SessionID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	return t, nil
}

// Parse splits transcript content into lines and decodes them.
func Parse(data []byte) *Transcript {
	t := &Transcript{Data: data}
	for rest := data; len(rest) > 0; {
		raw, after, found := bytes.Cut(rest, []byte{'\n'})
		l := Line{Raw: raw, Torn: !found}
		if rec, err := transcript.ParseLine(raw); rec.Raw != nil || err == nil {
			l.Rec, l.Valid = rec, true
			l.Rec.Line = len(t.Lines) + 1
		}
		t.Lines = append(t.Lines, l)
		rest = after
	}
	return t
}

// records returns the valid records, in file order.
func (t *Transcript) records() []transcript.Record {
	recs := make([]transcript.Record, 0, len(t.Lines))
	for _, l := range t.Lines {
		if l.Valid {
			recs = append(recs, l.Rec)
		}
	}
	return recs
}
