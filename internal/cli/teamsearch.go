package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/team"
)

// teamRequested reports whether a search or recall asked for the team
// archive (--team among the flags).
func teamRequested(args []string) bool {
	for _, arg := range args {
		switch arg {
		case "--":
			return false
		case "--team", "-team", "--team=true", "-team=true":
			return true
		}
	}
	return false
}

type teamResult struct {
	searchResult
	Owner string `json:"owner"`
}

// runTeamSearch is `ctxkeep search --team`: the team archive, as far as
// the user's role may read it, ranked as the local search ranks (full-text
// relevance, then recency), each result saying whose session, which
// project, when.
func runTeamSearch(ctx context.Context, a *app, args []string) error {
	var project, session string
	var everywhere, asJSON bool
	var limit int
	fs := a.flags("search")
	fs.Bool("team", true, "search the team archive")
	fs.StringVar(&project, "project", "", "search this team project only (default: this folder's, if it syncs; else every project you may read)")
	fs.BoolVar(&everywhere, "all", false, "search every project you may read")
	fs.StringVar(&session, "session", "", "search one session")
	fs.IntVar(&limit, "limit", 10, "show at most `N` results")
	fs.BoolVar(&asJSON, "json", false, "print the results as JSON")
	words, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return usageErrorf("search needs words to search for").withHint(`ctxkeep search --team "rate limiter test"`)
	}
	if project == "" && !everywhere && session == "" {
		project = a.teamProjectHere()
	}
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	q := ctxkeep.ChunkQuery{Text: strings.Join(words, " "), Project: project, Session: session, Limit: max(limit*5, 50)}
	hits, err := db.Search(ctx, q)
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return usageErrorf("%v", err).withHint("common words (the, of, what…) are left out; add a distinctive one")
	}
	if err != nil {
		return teamError(err)
	}
	owners := map[string]string{}
	plain := make([]ctxkeep.ChunkHit, len(hits))
	for i, h := range hits {
		owners[h.Key], plain[i] = h.Owner, h.ChunkHit
	}
	ranked, err := search.Rank(ctx, q.Text, plain, search.Signals{Now: a.Now()})
	if err != nil {
		return err
	}
	ranked = ranked[:min(limit, len(ranked))]
	results := make([]teamResult, len(ranked))
	for i, r := range ranked {
		results[i] = teamResult{Owner: owners[r.Key], searchResult: searchResult{Key: r.Key, SessionID: r.SessionID,
			Project: r.Project, Kind: r.Kind, Turn: r.Turn, When: r.End.Local().Format("2006-01-02 15:04"),
			Score: r.Score, Lexical: r.Lexical, Summary: r.Summary, Snippet: snippet(ctx, db, r.Chunk, q.Text)}}
	}
	if asJSON {
		return a.printJSON(map[string]any{"query": q.Text, "project": project, "results": results})
	}
	if len(results) == 0 {
		fmt.Fprintf(a.Stdout, "no match for %q in the team archive", q.Text)
		if project != "" {
			fmt.Fprintf(a.Stdout, " (project %s; `--all` searches every project you may read)", project)
		}
		fmt.Fprintln(a.Stdout)
		return nil
	}
	for _, r := range results {
		fmt.Fprintf(a.Stdout, "%s  %s · %s · session %s %s %d · %s · score %.2f\n  %s\n", r.Key, r.Owner, r.Project,
			r.SessionID[:min(8, len(r.SessionID))], r.Kind, r.Turn, r.When, r.Score, r.Summary)
		if r.Snippet != "" {
			fmt.Fprintf(a.Stdout, "  …%s…\n", r.Snippet)
		}
	}
	fmt.Fprintln(a.Stdout, "\nprint a turn exactly with `ctxkeep recall --team KEY`")
	return nil
}

// teamProjectHere is the team name of the project of this folder, when it
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

// runTeamRecall is `ctxkeep recall --team KEY`: a chunk of the team
// archive exactly, with the outputs whose text was pushed put back in
// place (the others say where their text is).
func runTeamRecall(ctx context.Context, a *app, args []string) error {
	var asJSON bool
	fs := a.flags("recall")
	fs.Bool("team", true, "recall from the team archive")
	fs.BoolVar(&asJSON, "json", false, "print the chunk as JSON (body with references, not expanded)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("recall --team takes one KEY").withHint("the keys are those `ctxkeep search --team` lists")
	}
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := db.TeamChunk(ctx, pos[0])
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		return hint(err, "`ctxkeep search --team WORDS` lists the chunks you may read")
	}
	if err != nil {
		return teamError(err)
	}
	if asJSON {
		return a.printJSON(map[string]any{"chunks": []postgres.Owned{c}})
	}
	fmt.Fprintf(a.Stdout, "── %s %d of session %s · %s · %s · %s · %s ──\n", c.Kind, c.Turn, c.SessionID, c.Owner, c.Project, c.Key,
		c.End.Local().Format("2006-01-02 15:04:05"))
	return expand(ctx, a.Stdout, db, c.Body)
}
