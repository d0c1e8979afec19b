package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/project"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var listCmd = &command{
	name:    "list",
	usage:   "list [--session ID | --all] [--json]",
	summary: "list the tool outputs kept out of the context",
	group:   groupOutputs,
	long: `Lists the outputs swapped out of the context: id, when, tool, characters of the original and of
the view the model saw instead, retrievals, the call and a one-line summary. Default: this
project's session with the latest stored output, else, when this project has none, the latest
of any project, which list then says is another project's (a note on stderr; "other_project"
and "note" with --json); --session takes a session id or a unique prefix, --all lists every
session's.`,
	examples: []string{"ctxkeep list", "ctxkeep list --session 258c", "ctxkeep list --all --json"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &listOptions{}
		fs.StringVar(&o.session, "session", "", "list one session's outputs: `ID`, a session id or a unique prefix")
		fs.BoolVar(&o.all, "all", false, "list every session's outputs")
		fs.BoolVar(&o.json, "json", false, "print the entries as JSON")
		return o.run
	},
}

type listOptions struct {
	session   string
	all, json bool
}

// listResult is `ctxkeep list --json`.
type listResult struct {
	Session string          `json:"-"` // the session listed, "" for all
	Entries []ctxkeep.Entry `json:"entries"`
	otherProject
}

func (o *listOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("list", pos); err != nil {
		return err
	}
	if o.session != "" && o.all {
		return usageErrorf("choose one of --session and --all")
	}
	var r listResult
	st, err := a.storeIfAny(ctx)
	switch {
	case errors.Is(err, errNoStore):
		r.Entries = []ctxkeep.Entry{}
	case err != nil:
		return err
	default:
		if r, err = o.result(ctx, a, st); err != nil {
			return err
		}
	}
	if o.json {
		return a.printJSON(r)
	}
	r.print(a)
	return nil
}

func (o *listOptions) result(ctx context.Context, a *app, st ctxkeep.Local) (listResult, error) {
	var r listResult
	if !o.all {
		c, err := a.pickSession(ctx, st, o.session)
		if err != nil {
			return r, err
		}
		r.Session, r.otherProject = c.Path, a.otherProject(c)
		if r.Session == "" && c.Elsewhere == "" && o.session == "" {
			return r, nil
		}
	}
	es, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: r.Session})
	r.Entries = orEmpty(printableEntries(es))
	return r, err
}

func (r listResult) print(a *app) {
	if r.Note != "" { // on stderr, so that the rows alone go down a pipe
		fmt.Fprintf(a.Stderr, "ctxkeep: note: %s\n", r.Note)
	}
	if len(r.Entries) == 0 {
		fmt.Fprintln(a.Stdout, "no tool output is stored yet: the hooks store the large ones as they happen")
		return
	}
	tw := a.table("ID\tWHEN\tTOOL\tCHARS\tVIEW\tGOT\tCALL\tSUMMARY")
	for _, e := range r.Entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", e.ID, e.CreatedAt.Local().Format("01-02 15:04"),
			e.Tool, e.Chars, e.ViewChars, e.AccessCount, callCell(e.Input, 60), cell(e.Summary, 70))
	}
	tw.Flush()
	if r.Session != "" {
		a.tip("session %s; `--all` lists every session's. Print one with `ctxkeep show ID` (or --lines A:B, --grep RE, --failures, --tail N)", text.Abbrev(r.Session))
	} else {
		a.tip("print one with `ctxkeep show ID` (or --lines A:B, --grep RE, --failures, --tail N)")
	}
}

// pickSession resolves a session id or prefix among those with entries
// (chosen.Path is the session id). "" means this project's session with
// the latest stored output, else, when this project has none, the latest
// of any project, marked as another project's.
func (a *app) pickSession(ctx context.Context, st ctxkeep.Local, id string) (chosen, error) {
	if id == "" {
		es, err := st.Entries(ctx, ctxkeep.EntryFilter{Latest: true})
		if err != nil || len(es) == 0 {
			return chosen{}, err
		}
		here := a.projectDir()
		for _, e := range es {
			if entryProject(e) == here {
				return chosen{Path: e.SessionID}, nil
			}
		}
		return chosen{Path: es[0].SessionID, Elsewhere: orDash(entryProject(es[0])), Lacks: "stored output"}, nil
	}
	ids, err := st.EntrySessions(ctx)
	if err != nil {
		return chosen{}, err
	}
	s, err := matchSession(ids, id, "with stored outputs")
	if err != nil {
		return chosen{}, hint(err, "`ctxkeep list --all` lists every session's stored outputs")
	}
	return chosen{Path: s}, nil
}

// entryProject is the project an output was stored in: the one its entry
// names, else the one of the folder the call ran in.
func entryProject(e ctxkeep.Entry) string {
	if e.Project != "" || e.Cwd == "" {
		return e.Project
	}
	return project.Root("", e.Cwd)
}
