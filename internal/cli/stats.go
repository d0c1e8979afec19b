package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/journal"
)

type statsOptions struct {
	session string
	limit   int
	asJSON  bool
}

type statsReport struct {
	Sessions []ctxkeep.SessionStats `json:"sessions"`
	Skipped  int                    `json:"bad_journal_lines,omitempty"`
}

func runStats(ctx context.Context, a *app, args []string) error {
	var o statsOptions
	fs := a.flags("stats")
	fs.StringVar(&o.session, "session", "", "show one session in detail (an id or a unique prefix)")
	fs.IntVar(&o.limit, "limit", 20, "show at most `N` sessions, most recent first")
	fs.BoolVar(&o.asJSON, "json", false, "print the statistics as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	// Journals not yet indexed by a Stop or PreCompact are indexed now.
	ingested, err := a.root.Ingest(ctx, st, "")
	if err != nil {
		return err
	}
	if o.session != "" {
		if o.session, err = resolveSession(d.Journals(), o.session); err != nil {
			return err
		}
	}
	sessions, err := st.Stats(ctx, o.session)
	if err != nil {
		return err
	}
	if o.limit > 0 && len(sessions) > o.limit {
		sessions = sessions[:o.limit]
	}
	if o.asJSON {
		if sessions == nil {
			sessions = []ctxkeep.SessionStats{}
		}
		return a.printJSON(statsReport{Sessions: sessions, Skipped: ingested.BadLines})
	}
	if len(sessions) == 0 {
		fmt.Fprintln(a.Stdout, "no hook events recorded yet")
		return nil
	}
	if o.session != "" {
		printSessionDetail(a, sessions[0])
		return nil
	}
	printSessionList(a, sessions)
	return nil
}

// resolveSession accepts a full session id or a unique prefix of one
// among the sessions that have a journal.
func resolveSession(jdir, id string) (string, error) {
	ids, err := journal.Sessions(jdir)
	if err != nil {
		return "", err
	}
	return matchSession(ids, id)
}

// matchSession finds id, or the only id it is a prefix of, among ids.
func matchSession(ids []string, id string) (string, error) {
	var matches []string
	for _, s := range ids {
		if s == id {
			return s, nil
		}
		if strings.HasPrefix(s, id) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return "", hint(fmt.Errorf("no session %q", id), "run `ctxkeep stats` to list the sessions")
	case 1:
		return matches[0], nil
	}
	return "", hint(fmt.Errorf("%q matches %d sessions", id, len(matches)), "give more of the id")
}

func printSessionList(a *app, sessions []ctxkeep.SessionStats) {
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tLAST SEEN\tCALLS\tFAILED OPEN\tSWAPPED\t~TOKENS KEPT OUT\tPROJECT")
	for _, s := range sessions {
		swapped, kept := 0, int64(0)
		if s.Swap != nil {
			swapped, kept = s.Swap.Entries, s.Swap.KeptOut()
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", s.ID, s.LastSeen.Local().Format("2006-01-02 15:04"),
			s.Events, s.Failures, swapped, (kept+3)/4, s.Cwd)
	}
	tw.Flush()
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
	fmt.Fprintf(w, "  hook calls  %d (%d failed open), %s of payloads\n\n", s.Events, s.Failures, humanBytes(s.PayloadBytes))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "EVENT\tCALLS\tFAILED\tPAYLOADS\tP50\tP95\tMAX\t")
	for _, e := range s.ByEvent {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", e.Event, e.Count, e.Failures, humanBytes(e.Bytes), micros(e.P50us), micros(e.P95us), micros(e.MaxUs))
	}
	tw.Flush()
	if sw := s.Swap; sw != nil {
		fmt.Fprintf(w, "\nswapped out: %d outputs, %d characters (~%d tokens) kept out of the context; %d retrieved again (re-fetch rate %.0f%%), %d retrievals\n",
			sw.Entries, sw.KeptOut(), (sw.KeptOut()+3)/4, sw.Retrieved, 100*sw.RefetchRate(), sw.Retrievals)
		fmt.Fprintf(w, "replacements the client took (checked in the transcript): %d applied, %d not applied, %d not checked yet\n",
			sw.Applied, sw.NotApplied, sw.Unchecked)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "TOOL\tSWAPPED\tORIGINALS\tVIEWS\t~TOKENS KEPT OUT\tRETRIEVED\tAPPLIED\tNOT APPLIED\t")
		for _, t := range sw.ByTool {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.Tool, t.Entries, t.Chars, t.ViewChars, (t.Chars-t.ViewChars+3)/4, t.Retrieved, t.Applied, t.NotApplied)
		}
		tw.Flush()
	}
	if len(s.ByTool) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "TOOL\tCALLS\tPAYLOADS\t")
		for _, t := range s.ByTool {
			fmt.Fprintf(tw, "%s\t%d\t%s\t\n", t.Tool, t.Count, humanBytes(t.Bytes))
		}
		tw.Flush()
	}
}

func micros(us int64) string {
	return (time.Duration(us) * time.Microsecond).Round(10 * time.Microsecond).String()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
