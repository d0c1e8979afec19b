package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// runRecall prints archived steps exactly: a step by its key, or a range
// of a session's turns or steps (keep.Recall), with the outputs ctxkeep
// kept out of the context put back in place.
func runRecall(ctx context.Context, a *app, args []string) error {
	var asJSON bool
	fs := a.flags("recall")
	fs.BoolVar(&asJSON, "json", false, "print the chunks as JSON (body with references, not expanded)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("recall takes one KEY, or SESSION:TURN[.STEP][-TURN[.STEP]]").withHint("the keys are the [k…] marks in what ctxkeep restored, or in `ctxkeep search`")
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	chunks, err := a.chunksFor(ctx, st, pos[0])
	if err != nil {
		return err
	}
	if asJSON {
		return a.printJSON(map[string]any{"chunks": chunks})
	}
	for _, c := range chunks {
		fmt.Fprintf(a.Stdout, "── %s %s of session %s · %s · %s ──\n", c.Kind, keep.Place(c), c.SessionID, c.Key, c.End.Local().Format("2006-01-02 15:04:05"))
		if err := expand(ctx, a.Stdout, st, c.Body); err != nil {
			return err
		}
	}
	return nil
}

// chunksFor resolves KEY or SESSION:RANGE (keep.Recall).
func (a *app) chunksFor(ctx context.Context, db ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
	chunks, err := keep.Recall(ctx, db, ref)
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		return nil, hint(err, "`ctxkeep search WORDS` lists step keys; SESSION:TURN[.STEP][-TURN[.STEP]] takes a range")
	}
	return chunks, err
}

// expand writes a chunk body with each [[ctxkeep:ID]] reference replaced by
// the exact stored output.
func expand(ctx context.Context, w io.Writer, st *store.Store, body string) error {
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

func writeEntry(ctx context.Context, w io.Writer, st *store.Store, id string) error {
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
