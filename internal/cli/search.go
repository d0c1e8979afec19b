package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var searchCmd = &command{
	name:    "search",
	usage:   "search WORDS... [--session ID | --project | --all] [--limit N] [--json]",
	summary: "search everything said and run in archived sessions, exact outputs included",
	group:   groupArchive,
	long: `Searches the archive (docs/KEEP.md): every turn of the archived sessions, the exact outputs
ctxkeep kept out of the context included, and the client's compaction summaries. Results are
ranked by the words, recency and the files in play. Common words (the, of, what…) are left out;
a query of only common words is an error that says so.

Default scope: the sessions of this project (the client's project root, else the git root of the
working directory, else the working directory). --session takes a session id or a unique prefix
of one; --all searches every project.

Each result: the chunk key (for ` + "`ctxkeep recall`" + `), session, turn, time, score, the client
the session ran in (Claude Code, Codex or Gemini CLI: one archive holds all three), the step's one-line summary,
what in it the words named (files, commands with their latest result, failures, tasks) and what
else it ran, and its best-matching lines, from the step and the exact outputs it refers to.`,
	examples: []string{
		`ctxkeep search "rate limiter test"`,
		"ctxkeep search traceparent --all --limit 5",
		"ctxkeep search migration --session 258c --json",
	},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &searchOptions{}
		fs.StringVar(&o.session, "session", "", "search one session: `ID`, a session id or a unique prefix")
		fs.BoolVar(&o.project, "project", false, "search this project's sessions (the default)")
		fs.BoolVar(&o.all, "all", false, "search every archived session")
		fs.IntVar(&o.limit, "limit", 10, "show at most `N` results")
		fs.BoolVar(&o.json, "json", false, "print the results as JSON")
		fs.BoolVar(&o.team, "team", false, "search the team archive on PostgreSQL instead, the projects your role may read (docs/TEAM.md)")
		return o.run
	},
}

type searchOptions struct {
	session                  string
	project, all, json, team bool
	limit                    int
}

type searchResult struct {
	Key       string  `json:"key"`
	SessionID string  `json:"session_id"`
	Project   string  `json:"project"`
	Kind      string  `json:"kind"`
	Agent     string  `json:"agent"` // the session's client: claude-code, codex, gemini
	Turn      int     `json:"turn"`
	Step      int     `json:"step,omitempty"`
	When      string  `json:"when,omitempty"` // left out when the record has no time
	Score     float64 `json:"score"`
	Lexical   float64 `json:"lexical"`
	Summary   string  `json:"summary"`
	Snippet   string  `json:"snippet"` // the best-matching lines, one per line
	// What the query named in the step (files, commands with their
	// result, failures, tasks), what else it ran, and its best-matching
	// lines with where each is (search.Shown).
	Matched []search.Match `json:"matched,omitempty"`
	Ran     []search.Match `json:"ran,omitempty"`
	Lines   []search.Line  `json:"lines,omitempty"`
	place   string         // recall.Place: "3.12", or "3" for a whole turn
}

// searchReport is `ctxkeep search --json`.
type searchReport struct {
	Query   string         `json:"query"`
	Scope   string         `json:"scope"` // "project", "session" or "all"
	Session string         `json:"session_id,omitempty"`
	Project string         `json:"project,omitempty"`
	Results []searchResult `json:"results"`
	empty   bool           // nothing is archived at all
}

func (o *searchOptions) validate(words []string) error {
	if len(words) == 0 {
		return usageErrorf("search needs words to search for").withHint(`ctxkeep search "rate limiter test"`)
	}
	n := 0
	for _, set := range []bool{o.session != "", o.project, o.all} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("choose one of --session, --project and --all")
	}
	if o.limit < 1 {
		return usageErrorf("bad --limit %d: want 1 or more", o.limit)
	}
	return nil
}

func (o *searchOptions) run(ctx context.Context, a *app, words []string) error {
	if err := o.validate(words); err != nil {
		return err
	}
	if o.team {
		return o.runTeam(ctx, a, words) // teamsearch.go
	}
	st, err := a.storeIfAny(ctx)
	if errors.Is(err, errNoStore) && o.session == "" {
		return o.noStore(a, strings.Join(words, " "))
	}
	if err != nil {
		return err
	}
	r, err := o.result(ctx, a, st, strings.Join(words, " "))
	if err != nil {
		return err
	}
	if o.json {
		return a.printJSON(r)
	}
	r.print(a)
	return nil
}

func (o *searchOptions) result(ctx context.Context, a *app, st ctxkeep.Local, query string) (searchReport, error) {
	r := searchReport{Query: query, Scope: "project", Results: []searchResult{}}
	q := search.Query{Text: query, Limit: o.limit}
	signals := search.Signals{Now: a.Now()}
	switch {
	case o.session != "":
		ids, err := st.ChunkSessions(ctx)
		if err != nil {
			return r, err
		}
		if q.Session, err = matchSession(ids, o.session, "in the archive"); err != nil {
			return r, hint(err, "`ctxkeep archive TRANSCRIPT` adds a session the hooks did not see")
		}
		r.Scope, r.Session = "session", q.Session
		signals.Files, _ = keep.FilesInPlay(ctx, st, q.Session) // a ranking hint: none is fine
	case o.all:
		r.Scope = "all"
	default:
		q.Project, r.Project = a.projectDir(), a.projectDir()
	}
	ranked, err := search.Search(ctx, st, q, signals)
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return r, (&hintedError{err: err, usage: true}).withHint("common words (the, of, what…) are left out; add a distinctive one")
	}
	if err != nil {
		return r, err
	}
	if len(ranked) == 0 {
		ids, err := st.ChunkSessions(ctx)
		r.empty = err == nil && len(ids) == 0
	}
	for _, h := range ranked {
		r.Results = append(r.Results, resultOf(ctx, st, h, q.Text))
	}
	return r, nil
}

// resultOf is a ranked hit as search shows it, with the lines of it (and
// of the outputs it refers to) that match the query best.
func resultOf(ctx context.Context, st ctxkeep.OutputStore, h search.Result, query string) searchResult {
	shown := search.Show(ctx, st, h.Chunk, query)
	var lines []string
	for _, l := range shown.Lines {
		lines = append(lines, l.Text)
	}
	return searchResult{Key: h.Key, SessionID: h.SessionID, Project: h.Project, Kind: h.Kind, Agent: h.Agent, Turn: h.Turn, Step: h.Step,
		When: when(h.End), Score: h.Score, Lexical: h.Lexical, Summary: printable(h.Summary),
		Snippet: strings.Join(lines, "\n"), Matched: shown.Matched, Ran: shown.Ran, Lines: shown.Lines, place: recall.Place(h.Chunk)}
}

// printShown writes what a hit's step holds that the query named, and
// what else it ran, under it.
func printShown(a *app, h searchResult) {
	if len(h.Matched) == 0 && len(h.Ran) == 0 {
		return
	}
	text := search.Shown{Matched: h.Matched, Ran: h.Ran}.Text()
	for l := range strings.Lines(text) {
		fmt.Fprintf(a.Stdout, "  %s\n", strings.TrimSuffix(l, "\n"))
	}
}

// when is a hit's time as search shows it, "" when the records it came
// from have none (a transcript without timestamps): never 0001-01-01.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04")
}

func orElse(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// printSnippet writes a hit's snippet under it, a line per line.
func printSnippet(a *app, snippet string) {
	for l := range strings.Lines(snippet) {
		fmt.Fprintf(a.Stdout, "  │ %s\n", strings.TrimSuffix(l, "\n"))
	}
}

func (r searchReport) print(a *app) {
	if r.empty {
		fmt.Fprintf(a.Stdout, "no match for %q: nothing is archived yet\n", r.Query)
		a.tip("the hooks archive sessions as they run; `ctxkeep archive --all` adds the ones from before")
		return
	}
	if len(r.Results) == 0 {
		fmt.Fprintf(a.Stdout, "no match for %q", r.Query)
		switch r.Scope {
		case "project":
			fmt.Fprint(a.Stdout, " in this project's sessions; `--all` searches every session")
		case "session":
			fmt.Fprintf(a.Stdout, " in session %s", text.Abbrev(r.Session))
		}
		fmt.Fprintln(a.Stdout)
		return
	}
	for _, h := range r.Results {
		fmt.Fprintf(a.Stdout, "%s  session %s · %s %s · %s · score %.2f · %s\n  %s\n", h.Key, h.SessionID[:min(8, len(h.SessionID))],
			h.Kind, h.place, orElse(h.When, "time unknown"), h.Score, agentName(h.Agent), text.FirstLine(h.Summary))
		printShown(a, h)
		printSnippet(a, h.Snippet)
	}
	a.tip("print a step exactly with `ctxkeep recall KEY`, its whole turn with `ctxkeep recall SESSION:TURN`")
}

// noStore is the answer of a search where nothing was ever stored: no
// match, and nothing is archived yet.
func (o *searchOptions) noStore(a *app, query string) error {
	r := searchReport{Query: query, Scope: "project", Project: a.projectDir(), Results: []searchResult{}, empty: true}
	if o.all {
		r.Scope, r.Project = "all", ""
	}
	if o.json {
		return a.printJSON(r)
	}
	r.print(a)
	return nil
}
