package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/prune"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var pruneCmd = &command{
	name:    "prune",
	usage:   "prune [--max-age D] [--max-size MB] [--pinned] [--gc-unreferenced] [--dry-run] [--json]",
	summary: "remove stored outputs past their retention or over the size limit",
	group:   groupStore,
	long: `Removes the unpinned outputs past their retention (retention.*), the oldest unpinned ones of a
session past limits.entries_per_session, and, while the store is over its size, unpinned outputs,
never retrieved before retrieved, least recently used first; with --pinned, soft pins after
them (purge's stubs are soft pins: nothing automatic takes them); never hard pins. Also removes
temporary blob files and blobs without a row older than an hour, the temporary files of readable
copies whose write was interrupted, and wrapper spool files older than a day. The SessionEnd hook
runs the same at the end of every session, without --pinned (docs/TEND.md). Every output removed
is logged with its reason in removed.log in the state folder.

--max-age D replaces the retention rules: unpinned outputs not stored or retrieved within D go
(30d, 12h, 90m; 0 takes every unpinned output). --max-size MB is the size, in megabytes
(10^6 bytes), to bring the store down to (default: when over limits.total_bytes, 90% of it).
--dry-run prints exactly what would go, why, and the bytes it returns, and changes not a byte of
the store (the index is opened read-only).`,
	examples: []string{"ctxkeep prune --dry-run", "ctxkeep prune --max-age 7d", "ctxkeep prune --max-size 200 --json"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &pruneOptions{}
		fs.StringVar(&o.maxAge, "max-age", "", "remove unpinned outputs not stored or retrieved within `D` (30d, 12h, 90m; 0 for all) instead of the retention rules")
		fs.StringVar(&o.maxSize, "max-size", "", "bring the store down to `MB` megabytes (default: when over limits.total_bytes, to 90% of it)")
		fs.BoolVar(&o.pinned, "pinned", false, "when over the size, also remove soft-pinned outputs (purge's stubs among them) once no unpinned one is left; hard pins never go")
		fs.BoolVar(&o.unreferenced, "gc-unreferenced", false, "also remove unpinned outputs of sessions whose transcript no longer exists")
		fs.BoolVar(&o.dryRun, "dry-run", false, "show what would be removed and the space it returns; change nothing")
		fs.BoolVar(&o.json, "json", false, "print the report as JSON")
		return o.run
	},
}

type pruneOptions struct {
	maxAge       string
	maxSize      string
	unreferenced bool
	pinned       bool
	dryRun       bool
	json         bool
}

// pruneReport is `ctxkeep prune --json`.
type pruneReport struct {
	DryRun  bool            `json:"dry_run"`
	Plan    *prune.Plan     `json:"plan"`
	Garbage ctxkeep.Garbage `json:"garbage"`
	Spool   []prune.File    `json:"spool_files"`
	Copies  []prune.File    `json:"copy_temp_files"` // of readable copies whose write was interrupted
	Frees   int64           `json:"frees_bytes"`     // stored bytes of blobs, plus garbage files
	Removed *prune.Result   `json:"removed,omitempty"`

	softPins bool
}

// options checks the flags and turns them into prune's options.
func (o *pruneOptions) options(now time.Time) (prune.Options, error) {
	opt := prune.Options{Now: now, Unreferenced: o.unreferenced, SoftPins: o.pinned}
	if o.maxAge != "" {
		d, err := config.ParseDuration(o.maxAge)
		if err != nil || d < 0 {
			return opt, usageErrorf("bad --max-age %q: want a duration such as 30d, 12h or 90m, or 0 for every unpinned output", o.maxAge)
		}
		// prune reads 0 as "not set": an age of 1ns takes every output
		// stored or retrieved before now.
		opt.MaxAge = max(d, time.Nanosecond)
	}
	if o.maxSize != "" {
		mb, err := strconv.ParseFloat(o.maxSize, 64)
		if err != nil || mb <= 0 || math.IsInf(mb, 0) {
			return opt, usageErrorf("bad --max-size %q: want a number of megabytes above 0", o.maxSize).
				withHint("--max-age 0 removes every unpinned output (pins stay)")
		}
		opt.MaxBytes = max(1, int64(mb*1e6))
	}
	return opt, nil
}

// runPrune removes stored outputs past their retention, over the size
// limit or, with --gc-unreferenced, of sessions whose transcript is gone;
// and the garbage interrupted writes left (temporary files, blobs without
// rows, spool files) once it is old enough not to be a write in progress.
func (o *pruneOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("prune", pos); err != nil {
		return err
	}
	opt, err := o.options(a.Now())
	if err != nil {
		return err
	}
	cfg, _, err := a.config()
	if err != nil {
		return err
	}
	st, err := a.pruneStore(ctx, o.dryRun)
	if errors.Is(err, errNoStore) {
		if o.json {
			return a.printJSON(map[string]any{"dry_run": o.dryRun, "plan": map[string]any{"items": []any{}}, "frees_bytes": 0, "note": "no store yet: nothing to prune"})
		}
		fmt.Fprintln(a.Stdout, "no store yet: nothing to prune")
		return nil
	}
	if err != nil {
		return err
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	state, err := prune.Read(ctx, st)
	if err != nil {
		return err
	}
	state.TranscriptGone = func(session string) bool { return transcriptGone(state, session) }
	r := pruneReport{DryRun: o.dryRun, Plan: prune.Make(state, cfg, opt), softPins: o.pinned}
	if r.Garbage, err = st.FindGarbage(ctx, a.Now().Add(-prune.Grace)); err != nil {
		return err
	}
	if r.Spool, err = prune.SpoolLeftovers(d.Spool(), a.Now().Add(-prune.SpoolGrace)); err != nil {
		return err
	}
	if r.Copies, err = prune.CopyLeftovers(prune.CopyDirs(state), a.Now().Add(-prune.Grace)); err != nil {
		return err
	}
	if !o.dryRun {
		p := a.progress()
		p.Start(fmt.Sprintf("removing %d stored output(s)", len(r.Plan.Items)), 0)
		err := a.runPrunePlan(ctx, st, &r)
		p.Done()
		if err != nil {
			return err
		}
	}
	r.Frees = r.Plan.Frees() + r.Garbage.Bytes() + filesBytes(r.Spool) + filesBytes(r.Copies)
	r.Plan.Items, r.Spool, r.Copies = orEmpty(r.Plan.Items), orEmpty(r.Spool), orEmpty(r.Copies)
	for i := range r.Plan.Items {
		r.Plan.Items[i].Entry = printableEntry(r.Plan.Items[i].Entry)
	}
	if o.json {
		return a.printJSON(r)
	}
	printPrune(a, r, cfg)
	return nil
}

// pruneStore opens the store; for a dry run, read-only, so that not a byte
// of it changes (ctxkeep.OpenReadOnly).
func (a *app) pruneStore(ctx context.Context, dryRun bool) (ctxkeep.Local, error) {
	if !dryRun {
		return a.storeIfAny(ctx)
	}
	if !a.hasStore() {
		return nil, errNoStore
	}
	r, err := a.env()
	if err != nil {
		return nil, err
	}
	st, err := r.Store(ctx, ctxkeep.OpenReadOnly)
	if err != nil {
		return nil, hint(err, "run `ctxkeep install` (or any command without --dry-run) to create or migrate the store")
	}
	return st, nil
}

// runPrunePlan removes what the report plans, and keeps in it what was
// actually removed.
func (a *app) runPrunePlan(ctx context.Context, st ctxkeep.Local, r *pruneReport) error {
	res, err := prune.Run(ctx, st, r.Plan)
	r.Removed = &res
	if d, derr := a.dirs(); derr == nil {
		if lerr := prune.Record(d.Removals(), r.Plan, res, a.Now()); lerr != nil && err == nil {
			err = lerr
		}
	}
	if err != nil {
		return err
	}
	if r.Garbage, err = st.RemoveGarbage(ctx, r.Garbage); err != nil {
		return err
	}
	if r.Spool, err = prune.RemoveFiles(r.Spool); err != nil {
		return err
	}
	r.Copies, err = prune.RemoveFiles(r.Copies)
	return err
}

// transcriptGone reports whether the index knows where a session's
// transcript was and it is no longer there; an unknown transcript is not
// gone.
func transcriptGone(st *prune.State, session string) bool {
	path := st.Sessions[session].Transcript
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

func filesBytes(files []prune.File) int64 {
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n
}

func printPrune(a *app, r pruneReport, cfg *config.Config) {
	w := a.Stdout
	verb := "removed"
	if r.DryRun {
		verb = "would remove"
	}
	p := r.Plan
	if len(p.Items) > 0 {
		tw := a.table("ID\tSESSION\tTOOL\tSTORED\tGOT\tPIN\tFREES\tREASON\tCALL")
		for _, it := range p.Items {
			e := it.Entry
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.ID, text.Abbrev(e.SessionID), e.Tool,
				e.CreatedAt.Local().Format("2006-01-02 15:04"), e.AccessCount, e.PinLevel, text.Bytes(it.Frees), it.Reason,
				callCell(e.Input, 40))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "%s %d stored output(s), returning %s; %d temporary file(s), %d blob(s) without a row, %d spool file(s) and %d unfinished readable copies, returning %s\n",
		verb, len(p.Items), text.Bytes(p.Frees()), len(r.Garbage.Temps), len(r.Garbage.Orphans), len(r.Spool), len(r.Copies),
		text.Bytes(r.Garbage.Bytes()+filesBytes(r.Spool)+filesBytes(r.Copies)))
	fmt.Fprintf(w, "store: %s → %s (limits.total_bytes %s)\n", text.Bytes(p.Before), text.Bytes(p.After), text.Bytes(cfg.Limits.TotalBytes))
	if p.Target > 0 && p.After > p.Target {
		if r.softPins {
			fmt.Fprintf(w, "still over %s: what is left is pinned hard, or not a stored output\n", text.Bytes(p.Target))
		} else {
			fmt.Fprintf(w, "still over %s: what is left is pinned (`--pinned` also takes soft pins, purge's stubs among them), or not a stored output\n", text.Bytes(p.Target))
		}
	}
	if r.DryRun {
		fmt.Fprintln(w, "(dry run: nothing was changed)")
	}
}
