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
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/keep"
)

// ErrBadRef marks a reference that cannot name anything: a turn range
// that is not N or FROM-TO.
var ErrBadRef = errors.New("bad reference")

// Chunks resolves ref (keep.Recall): a step KEY (or a unique prefix of
// one), or SESSION:T, SESSION:T1-T2, SESSION:T.S, SESSION:T.S1-S2 and
// SESSION:T1.S1-T2.S2, where SESSION is a session id or a unique prefix of
// one. Nothing found is an error wrapping ctxkeep.ErrNotFound (or
// ErrAmbiguous for a prefix of several); a session archived but without
// what was asked is a *NoTurnsError; a range that names nothing wraps
// ErrBadRef.
func Chunks(ctx context.Context, db ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
	chunks, err := keep.Recall(ctx, db, ref)
	var none *keep.NothingInRangeError
	switch {
	case errors.Is(err, keep.ErrBadSpan):
		return nil, ctxkeep.Errorf(ErrBadRef, "%v", err)
	case errors.As(err, &none):
		return nil, &NoTurnsError{Session: none.Session, err: err}
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

// Write writes each chunk under a heading, its stored outputs put back in
// place.
func Write(ctx context.Context, w io.Writer, st ctxkeep.OutputStore, chunks []ctxkeep.Chunk) error {
	for _, c := range chunks {
		fmt.Fprintf(w, "── %s %s of session %s · %s · %s ──\n", c.Kind, keep.Place(c), c.SessionID, c.Key, c.End.Local().Format("2006-01-02 15:04:05"))
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
