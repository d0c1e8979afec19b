package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/recall"
)

var recallCmd = &command{
	name:    "recall",
	usage:   "recall KEY | SESSION:T[.S][-T[.S]] [--lines A:B | --grep RE [-C N] | --head N [--tail N]] [--json]",
	summary: "print archived steps or turns exactly, stored outputs put back in place",
	group:   groupArchive,
	long: `Prints what the archive holds exactly as archived (docs/KEEP.md) — the user's words, each tool
call with its input and result, the assistant's text — with the outputs ctxkeep kept out of the
context put back in place (hash-verified). KEY is a step's key as the restore block and
` + "`ctxkeep search`" + ` show it ([k…]). Or a session (an id or a unique prefix of one) and a place in it:
SESSION:T turn T's steps, SESSION:T1-T2 turns T1 to T2, SESSION:T.S step S of turn T,
SESSION:T.S1-S2 and SESSION:T1.S1-T2.S2 a range of steps.

A turn can be long (one prompt that drove hours of work, whole build logs put back): --lines,
--grep (with -C), --head and --tail narrow what is printed, as for ` + "`ctxkeep show`" + `; line numbers
count the lines recall prints. --json prints the chunks with their references unexpanded
([[ctxkeep:ID]]).`,
	examples: []string{
		"ctxkeep recall k77043b020b9",
		"ctxkeep recall 258c:3.4-3.9",
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
		return usageErrorf("recall takes one KEY, or SESSION:TURN[.STEP][-TURN[.STEP]]").withHint("the keys are the [k…] marks in what ctxkeep restored, or in `ctxkeep search`")
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
		return recall.Write(ctx, a.Stdout, st, chunks)
	}
	var b bytes.Buffer
	if err := recall.Write(ctx, &b, st, chunks); err != nil {
		return err
	}
	return o.narrow.print(a.Stdout, b.Bytes())
}

// chunksFor resolves KEY, SESSION:TURN or SESSION:FROM-TO, with a hint
// for what was not found.
func chunksFor(ctx context.Context, db ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
	chunks, err := recall.Chunks(ctx, db, ref)
	var none *recall.NoTurnsError
	switch {
	case errors.Is(err, recall.ErrBadRef):
		return nil, usageErrorf("%s", err)
	case errors.As(err, &none):
		return nil, hint(err, "`ctxkeep search --session %s WORDS` lists its turns", none.Session[:min(8, len(none.Session))])
	case !strings.Contains(ref, ":") && (errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous)):
		return nil, hint(err, "`ctxkeep search WORDS` lists the keys of archived steps")
	case err != nil:
		return nil, sessionHint(err)
	}
	return chunks, nil
}
