package cli

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

// runRecall prints archived turns exactly: a chunk by its key, or a range
// of a session's turns, with the outputs ctxkeep kept out of the context
// put back in place.
func runRecall(ctx context.Context, a *app, args []string) error {
	if teamRequested(args) {
		return runTeamRecall(ctx, a, args)
	}
	var asJSON bool
	fs := a.flags("recall")
	fs.BoolVar(&asJSON, "json", false, "print the chunks as JSON (body with references, not expanded)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("recall takes one KEY or SESSION:TURN[-TURN]").withHint("the keys are the [k…] marks in what ctxkeep restored, or in `ctxkeep search`")
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
		fmt.Fprintf(a.Stdout, "── %s %d of session %s · %s · %s ──\n", c.Kind, c.Turn, c.SessionID, c.Key, c.End.Local().Format("2006-01-02 15:04:05"))
		if err := expand(ctx, a.Stdout, st, c.Body); err != nil {
			return err
		}
	}
	return nil
}

// chunksFor resolves KEY, SESSION:TURN or SESSION:FROM-TO.
func (a *app) chunksFor(ctx context.Context, db ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
	session, turns, ok := strings.Cut(ref, ":")
	if !ok {
		c, err := db.Chunk(ctx, ref)
		if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
			return nil, hint(err, "`ctxkeep search WORDS` lists chunk keys")
		}
		return []ctxkeep.Chunk{c}, err
	}
	from, to, err := turnRange(turns)
	if err != nil {
		return nil, err
	}
	ids, err := db.ChunkSessions(ctx)
	if err != nil {
		return nil, err
	}
	if session, err = matchSession(ids, session); err != nil {
		return nil, err
	}
	chunks, err := db.TurnRange(ctx, session, from, to)
	if err == nil && len(chunks) == 0 {
		err = fmt.Errorf("session %s has no archived turn in %d–%d", session, from, to)
	}
	return chunks, err
}

func turnRange(s string) (int, int, error) {
	a, b, ranged := strings.Cut(s, "-")
	from, err1 := strconv.Atoi(a)
	to := from
	var err2 error
	if ranged {
		to, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return 0, 0, usageErrorf("bad turn range %q: want N or FROM-TO", s)
	}
	return from, to, nil
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
