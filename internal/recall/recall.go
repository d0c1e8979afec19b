// Package recall gives back what the archive holds, exactly: a chunk by
// its key, or a session's turns by number, each under a heading, with the
// outputs ctxkeep kept out of the context put back in place
// (hash-verified). `ctxkeep recall` and the MCP tool recall print through
// it, so that both print the same text and number the same lines.
package recall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
)

// ErrBadRef marks a reference that cannot name anything: a turn range
// that is not N or FROM-TO.
var ErrBadRef = errors.New("bad reference")

// Chunks resolves ref: a chunk KEY (or a unique prefix of one), or
// SESSION:TURN and SESSION:FROM-TO, where SESSION is a session id or a
// unique prefix of one. Nothing found is an error wrapping
// ctxkeep.ErrNotFound (or ErrAmbiguous for a prefix of several).
func Chunks(ctx context.Context, db ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
	session, turns, ok := strings.Cut(ref, ":")
	if !ok {
		c, err := db.Chunk(ctx, ref)
		if err != nil {
			return nil, err
		}
		return []ctxkeep.Chunk{c}, nil
	}
	from, to, err := turnRange(turns)
	if err != nil {
		return nil, err
	}
	ids, err := db.ChunkSessions(ctx)
	if err != nil {
		return nil, err
	}
	if session, err = MatchSession(ids, session, "in the archive"); err != nil {
		return nil, err
	}
	chunks, err := db.TurnRange(ctx, session, from, to)
	if err == nil && len(chunks) == 0 {
		what := fmt.Sprintf("turn %d", from)
		if to > from {
			what = fmt.Sprintf("turns %d–%d", from, to)
		}
		return nil, &NoTurnsError{Session: session, err: ctxkeep.Errorf(ctxkeep.ErrNotFound, "session %s has no archived %s", session, what)}
	}
	return chunks, err
}

// NoTurnsError says that a session is archived, but not the turns asked
// for; it wraps ctxkeep.ErrNotFound.
type NoTurnsError struct {
	Session string
	err     error
}

func (e *NoTurnsError) Error() string { return e.err.Error() }
func (e *NoTurnsError) Unwrap() error { return e.err }

func turnRange(s string) (int, int, error) {
	a, b, ranged := strings.Cut(s, "-")
	from, err1 := strconv.Atoi(a)
	to := from
	var err2 error
	if ranged {
		to, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return 0, 0, ctxkeep.Errorf(ErrBadRef, "bad turn range %q: want N or FROM-TO", s)
	}
	return from, to, nil
}

// MatchSession finds id, or the only id it is a prefix of, among ids (the
// sessions among says: "with stored outputs", "in the archive"…). Its
// errors wrap ctxkeep.ErrNotFound or ctxkeep.ErrAmbiguous.
func MatchSession(ids []string, id, among string) (string, error) {
	var matches []string
	for _, s := range ids {
		if s == id {
			return s, nil
		}
		if strings.HasPrefix(s, id) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return "", ctxkeep.Errorf(ctxkeep.ErrNotFound, "no session %q %s", id, among)
	case 1:
		return matches[0], nil
	}
	return "", ctxkeep.Errorf(ctxkeep.ErrAmbiguous, "%q matches %d sessions %s", id, len(matches), among)
}

// Write writes each chunk under a heading, its stored outputs put back in
// place.
func Write(ctx context.Context, w io.Writer, st ctxkeep.OutputStore, chunks []ctxkeep.Chunk) error {
	for _, c := range chunks {
		fmt.Fprintf(w, "── %s %d of session %s · %s · %s ──\n", c.Kind, c.Turn, c.SessionID, c.Key, c.End.Local().Format("2006-01-02 15:04:05"))
		if err := expand(ctx, w, st, c.Body); err != nil {
			return err
		}
	}
	return nil
}

// expand writes a chunk body with each [[ctxkeep:ID]] reference replaced by
// the exact stored output.
func expand(ctx context.Context, w io.Writer, st ctxkeep.OutputStore, body string) error {
	for {
		i := strings.Index(body, archive.RefPrefix)
		if i < 0 {
			_, err := io.WriteString(w, body)
			return err
		}
		j := strings.Index(body[i:], "]]")
		if j < 0 {
			_, err := io.WriteString(w, body)
			return err
		}
		id := body[i+len(archive.RefPrefix) : i+j]
		io.WriteString(w, body[:i])
		if err := writeEntry(ctx, w, st, id); err != nil {
			return err
		}
		body = body[i+j+2:]
	}
}

func writeEntry(ctx context.Context, w io.Writer, st ctxkeep.OutputStore, id string) error {
	e, err := st.Entry(ctx, id)
	if err != nil {
		_, err = fmt.Fprintf(w, "(stored output %s is gone: %v)", id, err)
		return err
	}
	data, err := st.Open(ctx, e.Hash)
	if err != nil {
		_, err = fmt.Fprintf(w, "(stored output %s cannot be read: %v)", id, err)
		return err
	}
	_, err = w.Write(data)
	return err
}
