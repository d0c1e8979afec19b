package cli

import (
	"context"
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/store"
)

// checkReport is `ctxkeep check --json`.
type checkReport struct {
	OK       bool            `json:"ok"` // nothing wrong is left
	Report   store.Report    `json:"report"`
	Repaired *store.Repaired `json:"repaired,omitempty"`
	After    *store.Report   `json:"after,omitempty"` // the check again, after repairing
}

// runCheck verifies the whole store: SQLite's integrity_check, every FTS5
// table's integrity check, every blob's SHA-256, rows without blobs,
// blobs without rows, entries whose blob has no row. --repair fixes what
// can be fixed without losing data and says what it could not. Exit
// status 1 when a problem is left.
func runCheck(ctx context.Context, a *app, args []string) error {
	var repair, asJSON bool
	fs := a.flags("check")
	fs.BoolVar(&repair, "repair", false, "fix what can be fixed without losing data; report the rest")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	rep, err := st.Check(ctx, true)
	if err != nil {
		return err
	}
	r := checkReport{Report: rep, OK: rep.OK()}
	if repair && !rep.OK() {
		fixed, err := st.Repair(ctx, rep)
		if err != nil {
			return err
		}
		after, err := st.Check(ctx, true)
		if err != nil {
			return err
		}
		r.Repaired, r.After, r.OK = &fixed, &after, after.OK()
	}
	if asJSON {
		if err := a.printJSON(r); err != nil {
			return err
		}
	} else {
		printCheck(a, r, repair)
	}
	if !r.OK {
		return silentError{code: exitError}
	}
	return nil
}

func printCheck(a *app, r checkReport, repair bool) {
	w := a.Stdout
	rep := r.Report
	fmt.Fprintf(w, "%d blob rows, %d blob files, every blob's SHA-256 verified\n", rep.Rows, rep.Blobs)
	problems := []struct {
		n    int
		what string
		list []string
	}{
		{len(rep.IndexProblems), "index integrity problem(s)", rep.IndexProblems},
		{len(rep.FTSProblems), "full-text index problem(s)", rep.FTSProblems},
		{len(rep.Missing), "row(s) whose blob file is missing", hashes(rep.Missing)},
		{len(rep.Corrupt), "blob(s) whose content does not match its SHA-256", hashes(rep.Corrupt)},
		{len(rep.Dangling), "entry(ies) whose blob has no row", rep.Dangling},
	}
	for _, p := range problems {
		if p.n == 0 {
			continue
		}
		fmt.Fprintf(w, "problem: %d %s\n", p.n, p.what)
		for _, s := range p.list {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	if len(rep.Unreferenced) > 0 || rep.Temps > 0 {
		fmt.Fprintf(w, "garbage: %d blob(s) without a row, %d temporary file(s) (`ctxkeep prune` removes them)\n", len(rep.Unreferenced), rep.Temps)
	}
	if r.Repaired != nil {
		for _, s := range r.Repaired.Fixed {
			fmt.Fprintf(w, "fixed: %s\n", s)
		}
		for _, s := range r.Repaired.Unfixed {
			fmt.Fprintf(w, "not fixed: %s\n", s)
		}
	}
	switch {
	case r.OK && rep.OK():
		fmt.Fprintln(w, "ok: no problem found")
	case r.OK:
		fmt.Fprintln(w, "ok: every problem was repaired")
	case !repair:
		fmt.Fprintln(w, "run `ctxkeep check --repair` to fix what can be fixed without losing data")
	}
}

func hashes[H ~string](hs []H) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return out
}

// runOptimize compacts the index: FTS merges, WAL checkpoint, vacuum.
func runOptimize(ctx context.Context, a *app, args []string) error {
	var asJSON bool
	fs := a.flags("optimize")
	fs.BoolVar(&asJSON, "json", false, "print what was done as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	o, err := st.Optimize(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return a.printJSON(o)
	}
	fmt.Fprintf(a.Stdout, "optimized %d full-text index(es), vacuumed the index and checkpointed its WAL: %s → %s\n",
		len(o.FTSTables), humanBytes(o.BytesBefore), humanBytes(o.BytesAfter))
	if !o.Checkpointed {
		fmt.Fprintln(a.Stdout, "note: another process was reading the index; part of the WAL stays until it is done")
	}
	return nil
}
