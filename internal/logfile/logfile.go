// Package logfile is ctxkeep's own log: one line per problem, appended to a
// private file the user (and `ctxkeep doctor`) can read. A hook that fails
// open says why here, since its stdout must stay empty.
//
// A message may quote what came in (an id, a path, a server's error): it is
// redacted (internal/redact) and cut to MaxLine bytes, the size it had
// noted, so that a hostile field of megabytes neither fills the log nor
// carries a secret or an output into it.
package logfile

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/redact"
)

// MaxSize is the size past which the log is rotated to <path>.1.
const MaxSize = 1 << 20

// MaxLine bounds one message.
const MaxLine = 2000

// Append writes one line: "<RFC3339 time> <msg>", with newlines in msg
// folded so that a stack trace stays one entry.
func Append(path string, now time.Time, msg string) error {
	line := now.UTC().Format(time.RFC3339) + " " + strings.ReplaceAll(redact.Field(strings.TrimSpace(msg), MaxLine), "\n", " ⏎ ") + "\n"
	if err := fsx.Append(path, []byte(line)); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && st.Size() > MaxSize {
		return os.Rename(path, path+".1")
	}
	return nil
}

// Entry is one log line.
type Entry struct {
	Time    time.Time `json:"time"`
	Message string    `json:"message"`
}

// Since returns the entries at or after t, at most the last n.
func Since(path string, t time.Time, n int) ([]Entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		ts, msg, ok := strings.Cut(sc.Text(), " ")
		when, err := time.Parse(time.RFC3339, ts)
		if !ok || err != nil || when.Before(t) {
			continue
		}
		out = append(out, Entry{Time: when, Message: msg})
		if len(out) > n {
			out = out[1:]
		}
	}
	return out, sc.Err()
}
