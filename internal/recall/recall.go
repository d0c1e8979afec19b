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
)

// ErrBadRef marks a reference that cannot name anything: a turn range
// that is not N or FROM-TO.
var ErrBadRef = errors.New("bad reference")

// Chunks resolves ref (Recall): a step KEY (or a unique prefix of
// one), or SESSION:T, SESSION:T1-T2, SESSION:T.S, SESSION:T.S1-S2 and
// SESSION:T1.S1-T2.S2, where SESSION is a session id or a unique prefix of
// one. Nothing found is an error wrapping ctxkeep.ErrNotFound (or
// ErrAmbiguous for a prefix of several); a session archived but without
// what was asked is a *NoTurnsError; a range that names nothing wraps
// ErrBadRef.
func Chunks(ctx context.Context, db ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
	chunks, err := Recall(ctx, db, ref)
	var none *NothingInRangeError
	switch {
	case errors.Is(err, ErrBadSpan):
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
		fmt.Fprintf(w, "── %s %s of session %s · %s · %s ──\n", c.Kind, Place(c), c.SessionID, c.Key, c.End.Local().Format("2006-01-02 15:04:05"))
		if err := expand(ctx, w, st, c); err != nil {
			return err
		}
	}
	return nil
}

// expand writes a chunk's body with the stored outputs it refers to put
// back in place.
//
// A step refers to a stored output only through the tool call that
// produced it: when archive meets a call whose output ctxkeep swapped out
// (found by the call's tool_use_id among the entries of the step's own
// session), it writes [[ctxkeep:ID]] as the call's result and records the
// entry in Meta.Entries, in the body's order. Only those references are
// expanded, each once, by their whole id, and only to an entry of the
// chunk's own session. Anything else that looks like a reference — a
// README or a web page the agent read that says [[ctxkeep:d4a3]] — is text
// the step holds, and stays as it is: text never chooses what is printed.
func expand(ctx context.Context, w io.Writer, st ctxkeep.OutputStore, c ctxkeep.Chunk) error {
	body := c.Body
	for _, id := range c.Meta.Entries {
		ref := archive.RefPrefix + id + "]]"
		i := strings.Index(body, ref)
		if id == "" || i < 0 {
			continue
		}
		if _, err := io.WriteString(w, body[:i]); err != nil {
			return err
		}
		if err := writeEntry(ctx, w, st, c.SessionID, id); err != nil {
			return err
		}
		body = body[i+len(ref):]
	}
	_, err := io.WriteString(w, body)
	return err
}

// writeEntry writes the exact stored output of entry id, which must be one
// of session's.
func writeEntry(ctx context.Context, w io.Writer, st ctxkeep.OutputStore, session, id string) error {
	e, err := st.Entry(ctx, id)
	if err == nil && (e.ID != id || e.SessionID != session) {
		err = ctxkeep.Errorf(ctxkeep.ErrNotFound, "no entry %s in session %s", id, session)
	}
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
