package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/team"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// The --team paths of search and recall: the team archive on PostgreSQL
// (docs/TEAM.md), as far as the user's role may read it.

type teamResult struct {
	searchResult
	Owner string `json:"owner"` // the role that pushed the session
}

// teamSearchReport is `ctxkeep search --team --json`.
type teamSearchReport struct {
	Query   string       `json:"query"`
	Scope   string       `json:"scope"` // "project", "session" or "all" (the projects the role may read)
	Session string       `json:"session_id,omitempty"`
	Project string       `json:"project,omitempty"` // the team project
	Results []teamResult `json:"results"`
}

// runTeam is `ctxkeep search --team`: ranked as the local search ranks
// (full-text relevance, then recency), each result saying whose session,
// which project, when. Scope: --session, --all (every project the role may
// read), --project (this folder's team project), and by default this
// folder's team project when it syncs, else every project.
func (o *searchOptions) runTeam(ctx context.Context, a *app, words []string) error {
	r := teamSearchReport{Query: strings.Join(words, " "), Scope: "all", Results: []teamResult{}}
	here := a.teamProjectHere()
	switch {
	case o.session != "":
		r.Scope, r.Session = "session", o.session
	case o.project && here == "":
		return hint(fmt.Errorf("%s does not sync to the team archive", a.projectDir()), "`ctxkeep team add-project` adds it; --all searches every project you may read")
	case !o.all && here != "":
		r.Scope, r.Project = "project", here
	}
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	q := ctxkeep.ChunkQuery{Text: r.Query, Project: r.Project, Session: r.Session, Limit: max(o.limit*5, 50)}
	plain, owners, err := teamArchive{db}.SearchTeam(ctx, q)
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return (&hintedError{err: ctxkeep.ErrEmptyQuery, usage: true}).withHint("common words (the, of, what…) are left out; add a distinctive one")
	}
	if err != nil {
		return err
	}
	ranked, err := search.Rank(ctx, q.Text, plain, search.Signals{Now: a.Now()})
	if err != nil {
		return err
	}
	for _, h := range ranked[:min(o.limit, len(ranked))] {
		r.Results = append(r.Results, teamResult{Owner: owners[h.Key], searchResult: resultOf(ctx, db, h, q.Text)})
	}
	if o.json {
		return a.printJSON(r)
	}
	if len(r.Results) == 0 {
		fmt.Fprintf(a.Stdout, "no match for %q in the team archive", r.Query)
		if r.Project != "" {
			fmt.Fprintf(a.Stdout, " (project %s; --all searches every project you may read)", r.Project)
		}
		fmt.Fprintln(a.Stdout)
		return nil
	}
	for _, x := range r.Results {
		fmt.Fprintf(a.Stdout, "%s  %s · %s · session %s %s %s · %s · score %.2f\n  %s\n", x.Key, x.Owner, x.Project,
			x.SessionID[:min(8, len(x.SessionID))], x.Kind, x.place, orElse(x.When, "time unknown"), x.Score, text.FirstLine(x.Summary))
		printShown(a, x.searchResult)
		printSnippet(a, x.Snippet)
	}
	fmt.Fprintln(a.Stdout, "\nprint a step exactly with `ctxkeep recall --team KEY`, its whole turn with `ctxkeep recall --team SESSION:TURN`")
	return nil
}

// teamProjectHere is the team name of this folder's project, when it
// syncs to the team archive; else "".
func (a *app) teamProjectHere() string {
	path, err := a.teamProjectsFile()
	if err != nil {
		return ""
	}
	ps, err := team.Projects(path)
	if err != nil {
		return ""
	}
	p, _ := team.Of(ps, a.projectDir())
	return p.Name
}

// archive is where recall reads: the local store, or with --team the team
// archive (whose outputs' text is there when it was pushed; recall says
// so in its place otherwise). done closes what it opened.
func (o *recallOptions) archive(ctx context.Context, a *app) (st ctxkeep.Store, done func(), err error) {
	if !o.team {
		st, err := a.openStore(ctx)
		return st, func() {}, err
	}
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// teamOwners says, for chunks of the team archive, whose sessions they are
// and in which team project.
func (o *recallOptions) teamOwners(ctx context.Context, a *app, st ctxkeep.Store, chunks []ctxkeep.Chunk) {
	db, ok := st.(ctxkeep.TeamArchive)
	if !o.team || !ok || o.json {
		return
	}
	seen := map[string]bool{}
	for _, c := range chunks {
		if seen[c.SessionID] {
			continue
		}
		seen[c.SessionID] = true
		if s, err := db.Session(ctx, c.SessionID); err == nil {
			fmt.Fprintf(a.Stdout, "── session %s of %s, in %s ──\n", c.SessionID, s.Owner, s.Project)
		}
	}
}
