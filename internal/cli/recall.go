package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
)

var recallCmd = &command{
	name:    "recall",
	usage:   "recall KEY | SESSION:TURN[-TURN] [--lines A:B | --grep RE [-C N] | --head N [--tail N]] [--json]",
	summary: "print archived turns exactly, stored outputs put back in place",
	group:   groupArchive,
	long: `Prints archived turns exactly as archived — the user's words, each tool call with its input and
result, the assistant's text — with the outputs ctxkeep kept out of the context put back in
place (hash-verified). KEY is a chunk key as the restore block and ` + "`ctxkeep search`" + ` show it
([k…]); SESSION:TURN and SESSION:FROM-TO take a session id or a unique prefix of one.

A turn can be long (a whole build log put back): --lines, --grep (with -C), --head and --tail
narrow what is printed, as for ` + "`ctxkeep show`" + `; line numbers count the lines recall prints.
--json prints the chunks with their references unexpanded ([[ctxkeep:ID]]).`,
	examples: []string{
		"ctxkeep recall k77043b020b9",
		"ctxkeep recall 258c:3-5 --grep 'FAIL' -C 2",
		"ctxkeep recall k77043b020b9 --head 80",
	},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &recallOptions{}
		o.narrow.register(fs)
		fs.BoolVar(&o.json, "json", false, "print the chunks as JSON (bodies with references, not expanded)")
		fs.BoolVar(&o.team, "team", false, "recall from the team archive on PostgreSQL (docs/TEAM.md)")
		return o.run
	},
}

type recallOptions struct {
	narrow narrowOptions
	json   bool
	team   bool
}

// recallReport is `ctxkeep recall --json`.
type recallReport struct {
	Chunks []ctxkeep.Chunk `json:"chunks"`
}

func (o *recallOptions) validate(pos []string) error {
	if len(pos) != 1 {
		return usageErrorf("recall takes one KEY or SESSION:TURN[-TURN]").withHint("the keys are the [k…] marks in what ctxkeep restored, or in `ctxkeep search`")
	}
	if o.json && o.narrow.set() {
		return usageErrorf("--json prints whole chunks: choose it or %s", strings.Join(o.narrow.ways(), ", "))
	}
	return o.narrow.validate()
}

func (o *recallOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := o.validate(pos); err != nil {
		return err
	}
	st, done, err := o.archive(ctx, a) // the local store, or the team archive (teamsearch.go)
	if err != nil {
		return err
	}
	defer done()
	chunks, err := chunksFor(ctx, st, pos[0])
	if err != nil {
		return err
	}
	o.teamOwners(ctx, a, st, chunks)
	if o.json {
		return a.printJSON(recallReport{Chunks: chunks})
	}
	if !o.narrow.set() {
		return writeChunks(ctx, a.Stdout, st, chunks)
	}
	var b bytes.Buffer
	if err := writeChunks(ctx, &b, st, chunks); err != nil {
		return err
	}
	return o.narrow.print(a.Stdout, b.Bytes())
}

// writeChunks writes each chunk under a heading, its stored outputs put
// back in place.
func writeChunks(ctx context.Context, w io.Writer, st ctxkeep.OutputStore, chunks []ctxkeep.Chunk) error {
	for _, c := range chunks {
		fmt.Fprintf(w, "── %s %d of session %s · %s · %s ──\n", c.Kind, c.Turn, c.SessionID, c.Key, c.End.Local().Format("2006-01-02 15:04:05"))
		if err := expand(ctx, w, st, c.Body); err != nil {
			return err
		}
	}
	return nil
}

// chunksFor resolves KEY, SESSION:TURN or SESSION:FROM-TO.
func chunksFor(ctx context.Context, db ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
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
	if session, err = matchSession(ids, session, "in the archive"); err != nil {
		return nil, err
	}
	chunks, err := db.TurnRange(ctx, session, from, to)
	if err == nil && len(chunks) == 0 {
		turns := fmt.Sprintf("turn %d", from)
		if to > from {
			turns = fmt.Sprintf("turns %d–%d", from, to)
		}
		return nil, hint(ctxkeep.Errorf(ctxkeep.ErrNotFound, "session %s has no archived %s", session, turns),
			"`ctxkeep search --session %s WORDS` lists its turns", session[:min(8, len(session))])
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
