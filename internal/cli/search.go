package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/search"
)

type searchResult struct {
	Key       string  `json:"key"`
	SessionID string  `json:"session_id"`
	Project   string  `json:"project"`
	Kind      string  `json:"kind"`
	Turn      int     `json:"turn"`
	When      string  `json:"when"`
	Score     float64 `json:"score"`
	Lexical   float64 `json:"lexical"`
	Summary   string  `json:"summary"`
	Snippet   string  `json:"snippet"`
}

// runSearch searches the archive: every turn of every archived session,
// with the exact outputs ctxkeep kept out of the context.
func runSearch(ctx context.Context, a *app, args []string) error {
	if teamRequested(args) {
		return runTeamSearch(ctx, a, args)
	}
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
	switch {
	case session != "":
		q.Session = session
	case !everywhere:
		q.Project = a.projectDir()
	}
	ranked, err := search.Search(ctx, st, q, search.Signals{Now: a.Now()})
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return usageErrorf("%v", err).withHint("common words (the, of, what…) are left out; add a distinctive one")
	}
	if err != nil {
		return err
	}
	results := make([]searchResult, len(ranked))
	for i, r := range ranked {
		results[i] = searchResult{Key: r.Key, SessionID: r.SessionID, Project: r.Project, Kind: r.Kind, Turn: r.Turn,
			When: r.End.Local().Format("2006-01-02 15:04"), Score: r.Score, Lexical: r.Lexical, Summary: r.Summary,
			Snippet: snippet(ctx, st, r.Chunk, q.Text)}
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
	for _, r := range results {
		fmt.Fprintf(a.Stdout, "%s  session %s · %s %d · %s · score %.2f\n  %s\n", r.Key, r.SessionID[:min(8, len(r.SessionID))], r.Kind, r.Turn, r.When, r.Score, r.Summary)
		if r.Snippet != "" {
			fmt.Fprintf(a.Stdout, "  …%s…\n", r.Snippet)
		}
	}
	fmt.Fprintln(a.Stdout, "\nprint a turn exactly with `ctxkeep recall KEY`")
	return nil
}

// snippet is a line of context around the first query word found in the
// chunk, or in the outputs it refers to.
func snippet(ctx context.Context, st ctxkeep.OutputStore, c ctxkeep.Chunk, query string) string {
	texts := []string{c.Body}
	for _, id := range c.Meta.Entries {
		if e, err := st.Entry(ctx, id); err == nil {
			if data, err := st.Open(ctx, e.Hash); err == nil {
				texts = append(texts, string(data))
			}
		}
	}
	for _, w := range strings.Fields(query) {
		re, err := regexp.Compile(`(?i)\b` + regexp.QuoteMeta(w))
		if err != nil || len(w) < 3 {
			continue
		}
		for _, text := range texts {
			if loc := re.FindStringIndex(text); loc != nil {
				from, to := max(0, loc[0]-80), min(len(text), loc[1]+80)
				return strings.Join(strings.Fields(validUTF8(text[from:to])), " ")
			}
		}
	}
	return ""
}

func validUTF8(s string) string { return strings.ToValidUTF8(s, "") }
