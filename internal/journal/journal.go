// Package journal records hook events cheaply: one JSON line appended per
// event to a per-session file, with a single write(2) on a file opened
// O_APPEND. On Linux such a write lands whole and never interleaves with
// another process's, so sixteen hooks firing at once need no lock and no
// database transaction. A later CLI call, Stop or PreCompact moves the new
// lines into the index (see sqlite.IngestJournals), reading from a byte
// cursor.
package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/redact"
)

// ValidSessionID reports whether id is safe to use as a file name
// (ctxkeep.ValidSessionID).
func ValidSessionID(id string) error { return ctxkeep.ValidSessionID(id) }

// Sink records hook calls in the journal files under Dir: the EventSink
// the composition root hands to the hooks.
type Sink struct{ Dir string }

var _ ctxkeep.EventSink = Sink{}

// Append records one hook call of session.
func (s Sink) Append(session string, e ctxkeep.Event) error { return Append(s.Dir, session, e) }

const ext = ".jsonl"

// Path is the journal file of a session.
func Path(dir, session string) (string, error) {
	if err := ValidSessionID(session); err != nil {
		return "", err
	}
	return filepath.Join(dir, session+ext), nil
}

// MaxField bounds each text of a record (a path, a command): what came in
// from a hook's input is not copied whole, however large.
const MaxField = 4096

// Append adds one record to a session's journal with a single write
// (fsx.Append), so concurrent hooks need no lock. Its texts are redacted
// and cut to MaxField bytes, their size noted (redact.Field); a command
// keeps its end, where the command learned from is.
func Append(dir, session string, r ctxkeep.Event) error {
	path, err := Path(dir, session)
	if err != nil {
		return err
	}
	r = clean(r)
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return fsx.Append(path, append(line, '\n'))
}

// clean redacts and bounds the texts of r.
func clean(r ctxkeep.Event) ctxkeep.Event {
	for _, f := range []*string{&r.Event, &r.Tool, &r.Agent, &r.Outcome, &r.Client, &r.Cwd, &r.Transcript} {
		*f = redact.Field(*f, MaxField)
	}
	if r.Large != nil {
		large := *r.Large
		large.Project = redact.Field(large.Project, MaxField)
		if n := len(large.Command); n > MaxField {
			// Its end, from a word's start: a secret cut in two would no
			// longer be recognised.
			tail := large.Command[n-MaxField:]
			if i := strings.IndexAny(tail, " \t\n;|&"); i >= 0 {
				tail = tail[i:]
			}
			for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
				tail = tail[1:]
			}
			large.Command = "[" + strconv.Itoa(n) + " bytes, cut] …" + tail
		}
		large.Command = redact.String(large.Command)
		r.Large = &large
	}
	return r
}

// Sessions lists the sessions that have a journal.
func Sessions(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ext)
		if ok && e.Type().IsRegular() && ValidSessionID(id) == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Read calls fn for each complete line of the journal at path from byte
// offset on, and returns the offset after the last complete line: a line
// still being written is left for the next call. Lines that do not decode
// are counted in bad and skipped.
func Read(path string, offset int64, fn func(ctxkeep.Event) error) (next int64, bad int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return offset, 0, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, 0, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	next = offset
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return next, bad, nil // an unterminated tail waits for its newline
		}
		if err != nil {
			return next, bad, err
		}
		next += int64(len(line))
		var r ctxkeep.Event
		if json.Unmarshal(line, &r) != nil || r.Event == "" {
			bad++
			continue
		}
		if err := fn(r); err != nil {
			return next - int64(len(line)), bad, err
		}
	}
}
