package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/progress"
	"github.com/ctxkeep/ctxkeep/internal/prune"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var checkCmd = &command{
	name:    "check",
	usage:   "check [--repair] [--json]",
	summary: "verify every stored byte and the index; --repair fixes what it can",
	group:   groupStore,
	long: `Verifies the whole store: SQLite's integrity_check, every full-text index's own check, every
blob read and hashed, rows whose blob is missing, entries whose blob has no row, and blobs
without a row (garbage for ` + "`ctxkeep prune`" + `, not a problem). --repair writes missing or damaged
blobs again from readable copies that still hash right, gives entries their blob row back,
rebuilds indexes and full-text tables, deletes nothing, and says what it could not fix. Exit
status 1 when a problem is left (with --json, the document says "ok": false).`,
	examples: []string{"ctxkeep check", "ctxkeep check --repair"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &checkOptions{}
		fs.BoolVar(&o.repair, "repair", false, "fix what can be fixed without losing data; report the rest")
		fs.BoolVar(&o.json, "json", false, "print the report as JSON")
		return o.run
	},
}

type checkOptions struct{ repair, json bool }

// checkReport is `ctxkeep check --json`.
type checkReport struct {
	OK       bool                 `json:"ok"` // nothing wrong is left
	Report   ctxkeep.CheckReport  `json:"report"`
	Repaired *ctxkeep.Repaired    `json:"repaired,omitempty"`
	After    *ctxkeep.CheckReport `json:"after,omitempty"` // the check again, after repairing
	// CopyTemps counts the temporary files of readable copies whose write
	// was interrupted, in the sessions' tool-results folders: garbage.
	CopyTemps int `json:"copy_temp_files,omitempty"`
}

func (o *checkOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("check", pos); err != nil {
		return err
	}
	st, err := a.storeIfAny(ctx)
	if errors.Is(err, errNoStore) {
		if o.json {
			return a.printJSON(map[string]any{"ok": true, "report": map[string]any{}, "note": "no store yet: nothing to check"})
		}
		fmt.Fprintln(a.Stdout, "no store yet: nothing to check (`ctxkeep install` prepares it)")
		return nil
	}
	if err != nil {
		return err
	}
	r, err := o.result(ctx, a, st)
	if err != nil {
		return err
	}
	if o.json {
		if err := a.printJSON(r); err != nil {
			return err
		}
	} else {
		r.print(a, o.repair)
	}
	if !r.OK {
		return silentError{code: exitError}
	}
	return nil
}

func (o *checkOptions) result(ctx context.Context, a *app, st ctxkeep.Local) (checkReport, error) {
	p := a.progress()
	defer p.Done()
	ctx = progress.With(ctx, p)
	rep, err := st.Check(ctx, true)
	if err != nil {
		return checkReport{}, err
	}
	r := checkReport{Report: rep, OK: rep.OK()}
	if state, err := prune.Read(ctx, st); err == nil {
		copies, _ := prune.CopyLeftovers(prune.CopyDirs(state), a.Now())
		r.CopyTemps = len(copies)
	}
	if !o.repair || rep.OK() {
		return r, nil
	}
	p.Start("repairing", 0)
	fixed, err := st.Repair(ctx, rep)
	if err != nil {
		return r, err
	}
	fixed.Fixed, fixed.Unfixed = orEmpty(fixed.Fixed), orEmpty(fixed.Unfixed)
	after, err := st.Check(ctx, true)
	if err != nil {
		return r, err
	}
	r.Repaired, r.After, r.OK = &fixed, &after, after.OK()
	return r, nil
}

func (r checkReport) print(a *app, repair bool) {
	w := a.Stdout
	rep := r.Report
	fmt.Fprintf(w, "checked the index, its full-text indexes and %d blob(s), each read and hashed (%d row(s) in the index)\n", rep.Blobs, rep.Rows)
	problems := []struct {
		what string
		list []string
	}{
		{"index integrity problem(s)", rep.IndexProblems},
		{"full-text index problem(s)", rep.FTSProblems},
		{"row(s) whose blob file is missing", hashes(rep.Missing)},
		{"blob(s) whose content does not match its SHA-256", hashes(rep.Corrupt)},
		{"entry(ies) whose blob has no row", rep.Dangling},
	}
	for _, p := range problems {
		if len(p.list) == 0 {
			continue
		}
		fmt.Fprintf(w, "problem: %d %s\n", len(p.list), p.what)
		for _, s := range p.list {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	if len(rep.Unreferenced) > 0 || rep.Temps > 0 || r.CopyTemps > 0 {
		fmt.Fprintf(w, "garbage: %d blob(s) without a row, %d temporary file(s), %d unfinished readable copy file(s) (`ctxkeep prune` removes them once an hour old)\n",
			len(rep.Unreferenced), rep.Temps, r.CopyTemps)
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
	default:
		fmt.Fprintln(w, "some problems are left: see \"not fixed\" above")
	}
}

func hashes[H ~string](hs []H) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return out
}

var optimizeCmd = &command{
	name:    "optimize",
	usage:   "optimize [--json]",
	summary: "compact the index: merge full-text indexes, checkpoint the WAL, vacuum",
	group:   groupStore,
	long: `Merges each full-text index into one b-tree, vacuums the index, and checkpoints and truncates its
write-ahead log. Hooks wait meanwhile, each at most until its deadline, then fail open; run it when
no session is busy.`,
	examples: []string{"ctxkeep optimize"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &optimizeOptions{}
		fs.BoolVar(&o.json, "json", false, "print what was done as JSON")
		return o.run
	},
}

type optimizeOptions struct{ json bool }

func (o *optimizeOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("optimize", pos); err != nil {
		return err
	}
	st, err := a.storeIfAny(ctx)
	if errors.Is(err, errNoStore) {
		if o.json {
			return a.printJSON(map[string]any{"fts_tables": []string{}, "bytes_before": 0, "bytes_after": 0, "checkpointed": true})
		}
		fmt.Fprintln(a.Stdout, "no store yet: nothing to optimize (`ctxkeep install` prepares it)")
		return nil
	}
	if err != nil {
		return err
	}
	p := a.progress()
	p.Start("optimizing the index", 0)
	res, err := st.Optimize(ctx)
	p.Done()
	if err != nil {
		return err
	}
	res.FTSTables = orEmpty(res.FTSTables)
	if o.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.Stdout, "optimized %d full-text index(es), vacuumed the index and checkpointed its WAL: %s → %s\n",
		len(res.FTSTables), text.Bytes(res.BytesBefore), text.Bytes(res.BytesAfter))
	if !res.Checkpointed {
		fmt.Fprintln(a.Stdout, "note: another process was reading the index; part of the WAL stays until it is done")
	}
	return nil
}
