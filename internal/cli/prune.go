package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/prune"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

type pruneOptions struct {
	maxAge       string
	maxSize      float64
	unreferenced bool
	pinned       bool
	dryRun       bool
	asJSON       bool
}

// pruneReport is `ctxkeep prune --json`.
type pruneReport struct {
	DryRun  bool          `json:"dry_run"`
	Plan    *prune.Plan   `json:"plan"`
	Garbage store.Garbage `json:"garbage"`
	Spool   []prune.File  `json:"spool_files"`
	Copies  []prune.File  `json:"copy_temp_files"` // of readable copies whose write was interrupted
	Frees   int64         `json:"frees_bytes"`     // stored bytes of blobs, plus garbage files
	Removed *prune.Result `json:"removed,omitempty"`

	softPins bool
}

// runPrune removes stored outputs past their retention, over the size
// limit or, with --gc-unreferenced, of sessions whose transcript is gone;
// and the garbage interrupted writes left (temporary files, blobs without
// rows, spool files) once it is old enough not to be a write in progress.
func runPrune(ctx context.Context, a *app, args []string) error {
	var o pruneOptions
	fs := a.flags("prune")
	fs.StringVar(&o.maxAge, "max-age", "", "remove unpinned outputs not stored or retrieved within `D` (30d, 12h, 90m) instead of the retention rules")
	fs.Float64Var(&o.maxSize, "max-size", 0, "bring the store down to `MB` megabytes (default: when over limits.total_bytes, to 90% of it)")
	fs.BoolVar(&o.unreferenced, "gc-unreferenced", false, "also remove unpinned outputs of sessions whose transcript no longer exists")
	fs.BoolVar(&o.pinned, "pinned", false, "when over the size, also remove soft-pinned outputs (purge's stubs among them) once no unpinned one is left; hard pins never go")
	fs.BoolVar(&o.dryRun, "dry-run", false, "show what would be removed and the space it returns; change nothing")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	opt := prune.Options{Now: a.Now(), MaxBytes: int64(o.maxSize * 1e6), Unreferenced: o.unreferenced, SoftPins: o.pinned}
	if o.maxAge != "" {
		d, err := parseAge(o.maxAge)
		if err != nil {
			return usageErrorf("bad --max-age %q: %v", o.maxAge, err).withHint("write a duration such as 30d, 12h or 90m")
		}
		opt.MaxAge = d
	}
	if o.maxSize < 0 {
		return usageErrorf("bad --max-size %g: want a positive number of megabytes", o.maxSize)
	}
	cfg, _, err := a.config()
	if err != nil {
		return err
	}
	st, err := a.pruneStore(ctx, o.dryRun)
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
	if !o.dryRun {
		if err := a.runPrunePlan(ctx, st, &r); err != nil {
			return err
		}
	}
	if r.Copies, err = prune.CopyLeftovers(prune.CopyDirs(state), a.Now().Add(-prune.Grace)); err != nil {
		return err
	}
	r.Frees = r.Plan.Frees() + r.Garbage.Bytes() + filesBytes(r.Spool) + filesBytes(r.Copies)
	if o.asJSON {
		return a.printJSON(r)
	}
	printPrune(a, r, cfg)
	return nil
}

// pruneStore opens the store; for a dry run, read-only, so that not a byte
// of it changes (store.ReadOnly).
func (a *app) pruneStore(ctx context.Context, dryRun bool) (*store.Store, error) {
	if !dryRun {
		return a.openStore(ctx)
	}
	r, err := a.env()
	if err != nil {
		return nil, err
	}
	st, err := r.Store(ctx, store.ReadOnly)
	if err != nil {
		return nil, hint(err, "run `ctxkeep install` (or any command without --dry-run) to create or migrate the store")
	}
	return st, nil
}

// runPrunePlan removes what the report plans, and keeps in it what was
// actually removed.
func (a *app) runPrunePlan(ctx context.Context, st *store.Store, r *pruneReport) error {
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
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSESSION\tTOOL\tSTORED\tGOT\tPIN\tFREES\tREASON\tCALL")
		for _, it := range p.Items {
			e := it.Entry
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.ID, text.Abbrev(e.SessionID), e.Tool,
				e.CreatedAt.Local().Format("2006-01-02 15:04"), e.AccessCount, e.PinLevel, humanBytes(it.Frees), it.Reason,
				text.Cut(text.FirstLine(e.Input), 40))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "%s %d stored output(s), returning %s; %d temporary file(s), %d blob(s) without a row, %d spool file(s) and %d unfinished readable copies, returning %s\n",
		verb, len(p.Items), humanBytes(p.Frees()), len(r.Garbage.Temps), len(r.Garbage.Orphans), len(r.Spool), len(r.Copies),
		humanBytes(r.Garbage.Bytes()+filesBytes(r.Spool)+filesBytes(r.Copies)))
	fmt.Fprintf(w, "store: %s → %s (limits.total_bytes %s)\n", humanBytes(p.Before), humanBytes(p.After), humanBytes(cfg.Limits.TotalBytes))
	if p.Target > 0 && p.After > p.Target {
		if r.softPins {
			fmt.Fprintf(w, "still over %s: what is left is pinned hard, or not a stored output\n", humanBytes(p.Target))
		} else {
			fmt.Fprintf(w, "still over %s: what is left is pinned (`--pinned` also takes soft pins, purge's stubs among them), or not a stored output\n", humanBytes(p.Target))
		}
	}
	if r.DryRun {
		fmt.Fprintln(w, "(dry run: nothing was changed)")
	}
}

// parseAge reads a duration, with "d" for days besides Go's units.
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n <= 0 {
			return 0, errors.New("want a positive number of days")
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = errors.New("want a positive duration")
	}
	return d, err
}
