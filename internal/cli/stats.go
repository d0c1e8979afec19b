package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var statsCmd = &command{
	name:    "stats",
	usage:   "stats [--session ID] [--limit N] [--json]",
	summary: "show what the hooks recorded, by session, event and tool",
	group:   groupContext,
	long: `First indexes the hook journals not yet indexed, and checks in the transcripts the replacements
not checked yet, then shows per session: when it was last seen, hook calls, calls that failed
open, outputs swapped out, those the transcript shows kept out of the context (the replacements
the client applied and the outputs the wrapper printed; the ones not checked yet or not applied
named apart) and the tokens they kept out, and the project. With --session (a session id or a
unique prefix), the breakdown by event (count, failures, payload bytes, p50/p95/max time from
process start to reply), by tool, and what swap kept out: outputs, characters, what the client
applied, and how many the agent retrieved again (the re-fetch rate: how often a view was not
enough; a person's own ` + "`ctxkeep show`" + ` does not count). Sessions are listed most recent first.`,
	examples: []string{"ctxkeep stats", "ctxkeep stats --session f759", "ctxkeep stats --json --limit 100"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &statsOptions{}
		fs.StringVar(&o.session, "session", "", "show one session in detail: `ID`, a session id or a unique prefix")
		fs.IntVar(&o.limit, "limit", 20, "show at most `N` sessions, most recent first")
		fs.BoolVar(&o.json, "json", false, "print the statistics as JSON")
		return o.run
	},
}

type statsOptions struct {
	session string
	limit   int
	json    bool
}

// statsReport is `ctxkeep stats --json`.
type statsReport struct {
	Sessions []ctxkeep.SessionStats `json:"sessions"`
	Skipped  int                    `json:"bad_journal_lines,omitempty"`
}

func (o *statsOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("stats", pos); err != nil {
		return err
	}
	if o.limit < 1 {
		return usageErrorf("bad --limit %d: want 1 or more", o.limit)
	}
	r := statsReport{Sessions: []ctxkeep.SessionStats{}}
	st, err := a.storeIfAny(ctx)
	switch {
	case errors.Is(err, errNoStore) && o.session == "":
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
	switch {
	case len(r.Sessions) == 0:
		fmt.Fprintln(a.Stdout, "no hook events recorded yet")
	case o.session != "":
		printSessionDetail(a, r.Sessions[0])
	default:
		printSessionList(a, r.Sessions)
	}
	return nil
}

func (o *statsOptions) result(ctx context.Context, a *app, st ctxkeep.Local) (statsReport, error) {
	var r statsReport
	// Journals not yet indexed by a Stop or PreCompact are indexed now.
	p := a.progress()
	p.Start("indexing the hook journals", 0)
	ingested, err := a.root.Ingest(ctx, st, "")
	p.Done()
	if err != nil {
		return r, err
	}
	r.Skipped = ingested.BadLines
	session := ""
	if o.session != "" {
		seen, err := st.Sessions(ctx) // every journal is indexed now
		if err != nil {
			return r, err
		}
		ids := slices.Sorted(maps.Keys(seen))
		if session, err = matchSession(ids, o.session, "recorded by the hooks"); err != nil {
			return r, err
		}
	}
	sessions, err := st.Stats(ctx, session)
	if err != nil {
		return r, err
	}
	if len(sessions) > o.limit {
		sessions = sessions[:o.limit]
	}
	// Replacements not checked yet are checked now, so that what is
	// counted as kept out is what the transcripts show.
	proved := false
	for _, s := range sessions {
		if s.Swap != nil && s.Swap.Unchecked > 0 && a.prove(ctx, st, s.ID, s.Transcript) {
			proved = true
		}
	}
	if proved {
		swaps, err := st.Swaps(ctx, session)
		if err != nil {
			return r, err
		}
		for i := range sessions {
			sessions[i].Swap = swaps[sessions[i].ID]
		}
	}
	for i := range sessions {
		sessions[i].ByEvent, sessions[i].ByTool = orEmpty(sessions[i].ByEvent), orEmpty(sessions[i].ByTool)
		if sw := sessions[i].Swap; sw != nil {
			sw.ByTool = orEmpty(sw.ByTool)
		}
	}
	r.Sessions = orEmpty(sessions)
	return r, nil
}

func printSessionList(a *app, sessions []ctxkeep.SessionStats) {
	tw := a.table("SESSION\tLAST SEEN\tCALLS\tFAILED OPEN\tSWAPPED\tKEPT OUT\t~TOKENS KEPT OUT\tPROJECT")
	for _, s := range sessions {
		swapped, kept, tokens := 0, "0", int64(0)
		if s.Swap != nil {
			swapped, kept, tokens = s.Swap.Entries, keptCell(s.Swap.Proof), (s.Swap.KeptOutChars+3)/4
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%s\n", s.ID, s.LastSeen.Local().Format("2006-01-02 15:04"),
			s.Events, s.Failures, swapped, kept, tokens, printable(s.Cwd))
	}
	tw.Flush()
	a.tip("details of one session: `ctxkeep stats --session ID` (a unique prefix is enough)")
}

func printSessionDetail(a *app, s ctxkeep.SessionStats) {
	w := a.Stdout
	fmt.Fprintf(w, "session %s\n", s.ID)
	if s.Cwd != "" {
		fmt.Fprintf(w, "  project     %s\n", s.Cwd)
	}
	if s.Client != "" {
		fmt.Fprintf(w, "  client      Claude Code %s\n", s.Client)
	}
	fmt.Fprintf(w, "  seen        %s → %s\n", s.FirstSeen.Local().Format("2006-01-02 15:04:05"), s.LastSeen.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(w, "  hook calls  %d (%d failed open), %s of payloads\n\n", s.Events, s.Failures, text.Bytes(s.PayloadBytes))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "EVENT\tCALLS\tFAILED\tPAYLOADS\tP50\tP95\tMAX\t")
	for _, e := range s.ByEvent {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", e.Event, e.Count, e.Failures, text.Bytes(e.Bytes), micros(e.P50us), micros(e.P95us), micros(e.MaxUs))
	}
	tw.Flush()
	if sw := s.Swap; sw != nil {
		fmt.Fprintf(w, "\nswapped out: %d outputs; kept out of the context, as the transcript shows: %s\n", sw.Entries, keptOut(sw.Proof))
		fmt.Fprintf(w, "what the model got (checked in the transcript): %d replacement(s) applied, %d not applied, %d not checked yet; %d printed by ctxkeep itself (the wrapper)\n",
			sw.Applied, sw.NotApplied, sw.Unchecked, sw.Printed)
		fmt.Fprintf(w, "retrieved again: %d (re-fetch rate %.0f%%), %d retrievals\n", sw.Retrieved, 100*sw.RefetchRate(), sw.Retrievals)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "TOOL\tSWAPPED\tORIGINALS\tVIEWS\t~TOKENS KEPT OUT\tRETRIEVED\tAPPLIED\tPRINTED\tNOT APPLIED\tUNCHECKED\t")
		for _, t := range sw.ByTool {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.Tool, t.Entries, t.Chars, t.ViewChars, (t.KeptOutChars+3)/4,
				t.Retrieved, t.Applied, t.Printed, t.NotApplied, t.Unchecked)
		}
		tw.Flush()
	}
	if len(s.ByTool) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "TOOL\tCALLS\tPAYLOADS\t")
		for _, t := range s.ByTool {
			fmt.Fprintf(tw, "%s\t%d\t%s\t\n", t.Tool, t.Count, text.Bytes(t.Bytes))
		}
		tw.Flush()
	}
}

func micros(us int64) string {
	return (time.Duration(us) * time.Microsecond).Round(10 * time.Microsecond).String()
}
