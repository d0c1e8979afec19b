package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/search"
)

type searchResult struct {
	Key       string  `json:"key"`
	SessionID string  `json:"session_id"`
	Project   string  `json:"project"`
	Kind      string  `json:"kind"`
	Turn      int     `json:"turn"`
	Step      int     `json:"step,omitempty"`
	When      string  `json:"when"`
	Score     float64 `json:"score"`
	Lexical   float64 `json:"lexical"`
	Summary   string  `json:"summary"`
	Snippet   string  `json:"snippet"`
}

// runSearch searches the archive: every turn of every archived session,
// with the exact outputs ctxkeep kept out of the context.
func runSearch(ctx context.Context, a *app, args []string) error {
	var session string
	var project, everywhere, asJSON bool
	var limit int
	fs := a.flags("search")
	fs.StringVar(&session, "session", "", "search one session (an id or a unique prefix)")
	fs.BoolVar(&project, "project", false, "search this project's sessions (the default)")
	fs.BoolVar(&everywhere, "all", false, "search every archived session")
	fs.IntVar(&limit, "limit", 10, "show at most `N` results")
	fs.BoolVar(&asJSON, "json", false, "print the results as JSON")
	words, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return usageErrorf("search needs words to search for").withHint(`ctxkeep search "rate limiter test"`)
	}
	if session != "" && everywhere {
		return usageErrorf("choose one of --session and --all")
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	q := search.Query{Text: strings.Join(words, " "), Limit: limit}
	signals := search.Signals{Now: a.Now()}
	switch {
	case session != "":
		if q.Session, err = keep.ResolveSession(ctx, st, session); err != nil {
			return hint(err, "`ctxkeep stats` lists the sessions")
		}
		signals.Files, _ = keep.FilesInPlay(ctx, st, q.Session)
	case !everywhere:
		q.Project = a.projectDir()
	}
	ranked, err := search.Search(ctx, st, q, signals)
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return usageErrorf("%v", err).withHint("common words (the, of, what…) are left out; add a distinctive one")
	}
	if err != nil {
		return err
	}
	results := make([]searchResult, len(ranked))
	for i, r := range ranked {
		results[i] = searchResult{Key: r.Key, SessionID: r.SessionID, Project: r.Project, Kind: r.Kind, Turn: r.Turn, Step: r.Step,
			When: r.End.Local().Format("2006-01-02 15:04"), Score: r.Score, Lexical: r.Lexical, Summary: r.Summary,
			Snippet: search.Snippet(search.Texts(ctx, st, r.Chunk), q.Text)}
	}
	if asJSON {
		return a.printJSON(map[string]any{"query": q.Text, "results": results})
	}
	if len(results) == 0 {
		fmt.Fprintf(a.Stdout, "no match for %q", q.Text)
		if q.Project != "" {
			fmt.Fprint(a.Stdout, " in this project's sessions; `--all` searches every session")
		}
		fmt.Fprintln(a.Stdout)
		return nil
	}
	for i, r := range results {
		fmt.Fprintf(a.Stdout, "%s  session %s · %s %s · %s · score %.2f\n  %s\n", r.Key, r.SessionID[:min(8, len(r.SessionID))], r.Kind, keep.Place(ranked[i].Chunk), r.When, r.Score, r.Summary)
		for l := range strings.Lines(r.Snippet) {
			fmt.Fprintf(a.Stdout, "  │ %s\n", strings.TrimSuffix(l, "\n"))
		}
	}
	fmt.Fprintln(a.Stdout, "\nprint a step exactly with `ctxkeep recall KEY`, its whole turn with `ctxkeep recall SESSION:TURN`")
	return nil
}
