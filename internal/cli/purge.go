package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/progress"
	"github.com/ctxkeep/ctxkeep/internal/purge"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var purgeCmd = &command{
	name:    "purge",
	usage:   "purge SESSION|--current [--analyze] [--dry-run] [--repair-only] [--threshold N] [--keep-thinking] [--force] [--json]",
	summary: "repair a session's transcript and slim it, behind a backup",
	group:   groupStore,
	long: `Repairs a session's transcript so that the client resumes it whole (broken parent links,
unanswered tool calls, orphan results, a torn last line), and slims it: tool results over
--threshold bytes are stored (pinned soft) and replaced by stubs naming their id, and thinking
blocks outside the last turn are removed. The original is kept beside it as
<session>.jsonl.ctxkeep-backup-<UTC time>. A file none of whose lines is a transcript record is
refused.

SESSION is a session id, a unique prefix of one, or a transcript path; --current is the session
the command runs in ($CLAUDE_CODE_SESSION_ID), else this project's latest session, never another
project's: in a project with no session of its own it is refused. A live session (a running
client registered it, or it was written in the last 2 minutes) is refused unless --force. --analyze prints sizes by record type, the biggest
tool results and the structural problems; --dry-run what would change; neither changes anything.
Details: docs/TEND.md.`,
	examples: []string{"ctxkeep purge --current --analyze", "ctxkeep purge 258c --dry-run", "ctxkeep purge ~/.claude/projects/-home-me-app/258c7280-….jsonl"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &purgeOptions{}
		fs.BoolVar(&o.current, "current", false, "the session this command runs in ($CLAUDE_CODE_SESSION_ID), else this project's latest; never another project's")
		fs.BoolVar(&o.analyze, "analyze", false, "show where the transcript's bytes are and its structural problems; change nothing")
		fs.BoolVar(&o.dryRun, "dry-run", false, "show what purge would change and the size after; change nothing")
		fs.BoolVar(&o.repairOnly, "repair-only", false, "repair the structure only; slim nothing")
		fs.IntVar(&o.threshold, "threshold", purge.DefaultThreshold, fmt.Sprintf("store and stub tool results larger than `N` bytes, %d or more", purge.MinThreshold))
		fs.BoolVar(&o.keepThinking, "keep-thinking", false, "keep thinking blocks")
		fs.BoolVar(&o.force, "force", false, "purge even a session the client is still writing to (lines it appends meanwhile are kept)")
		fs.BoolVar(&o.json, "json", false, "print the report as JSON")
		return o.run
	},
}

type purgeOptions struct {
	current      bool
	analyze      bool
	dryRun       bool
	repairOnly   bool
	threshold    int
	keepThinking bool
	force        bool
	json         bool
}

// purgeReport is `ctxkeep purge --json`.
type purgeReport struct {
	Path        string            `json:"path"`
	SessionID   string            `json:"session_id"`
	Live        purge.Liveness    `json:"live"`
	Analysis    *purge.Analysis   `json:"analysis,omitempty"` // with --analyze
	Repairs     []purge.Repair    `json:"repairs"`
	Stubs       []*purge.Stub     `json:"stubs"`
	Thinking    purge.Thinking    `json:"thinking"`
	BytesBefore int64             `json:"bytes_before"`
	BytesAfter  int64             `json:"bytes_after"`
	Changed     bool              `json:"changed"` // the transcript was (or would be) rewritten
	DryRun      bool              `json:"dry_run"`
	Backup      string            `json:"backup,omitempty"`
	Took        jsonDuration      `json:"took"`
	Options     purgeOptionsShown `json:"options"`
}

type purgeOptionsShown struct {
	Threshold    int  `json:"threshold"`
	KeepThinking bool `json:"keep_thinking"`
	RepairOnly   bool `json:"repair_only"`
}

type jsonDuration time.Duration

func (d jsonDuration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (o *purgeOptions) validate(pos []string) error {
	if (len(pos) == 1) == o.current || len(pos) > 1 {
		return usageErrorf("purge takes one session: an id, a unique prefix, a transcript path, or --current").
			withHint("run `ctxkeep stats` to list the sessions")
	}
	if o.threshold < purge.MinThreshold {
		return usageErrorf("bad --threshold %d: want at least %d bytes (a stub takes about 600)", o.threshold, purge.MinThreshold)
	}
	if o.analyze && o.force {
		return usageErrorf("--analyze changes nothing: --force does not go with it")
	}
	return nil
}

// run repairs a session's transcript so that the client can resume it,
// and slims it: large tool results go to the store, replaced by stubs,
// and thinking blocks outside the last turn go. The original is kept as a
// timestamped backup beside it. A session still being written to is
// refused without --force.
func (o *purgeOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := o.validate(pos); err != nil {
		return err
	}
	path, err := a.purgeTarget(pos, o.current)
	if err != nil {
		return err
	}
	start := time.Now()
	p := a.progress()
	defer p.Done()
	ctx = progress.With(ctx, p)
	p.Start("reading "+filepath.Base(path), 0)
	t, err := purge.Read(path)
	if errors.Is(err, purge.ErrNotTranscript) {
		return refused(err, "purge works on Claude Code session transcripts (~/.claude/projects/*/SESSION.jsonl); nothing was changed")
	}
	if err != nil {
		return err
	}
	r := purgeReport{Path: path, SessionID: t.SessionID, Live: purge.Live(t, a.claudeDir(), a.Now()),
		BytesBefore: int64(len(t.Data)), DryRun: o.dryRun || o.analyze,
		Options: purgeOptionsShown{Threshold: o.threshold, KeepThinking: o.keepThinking, RepairOnly: o.repairOnly}}
	p.Start("planning", 0)
	plan := t.Plan(purge.Options{Threshold: o.threshold, KeepThinking: o.keepThinking, RepairOnly: o.repairOnly,
		Live: r.Live.Live && o.force})
	r.Repairs, r.Stubs, r.Thinking, r.Changed = orEmpty(plan.Repairs), orEmpty(plan.Stubs), plan.Thinking, plan.Changes()
	if o.analyze {
		an := t.Analyze()
		an.ByType, an.Biggest = orEmpty(an.ByType), orEmpty(an.Biggest)
		r.Analysis = &an
	}
	if !r.DryRun && r.Changed {
		if r.Live.Live && !o.force {
			return refused(fmt.Errorf("%s is live: %s", path, r.Live.Reason),
				"end that session first (or wait %s), or use --force: lines the client appends meanwhile are kept", config.FormatDuration(purge.RecentWindow))
		}
		if r.Backup, r.BytesAfter, err = a.applyPurge(ctx, t, plan); err != nil {
			return err
		}
	} else {
		content, err := plan.Render()
		if err != nil {
			return err
		}
		r.BytesAfter = int64(len(content))
	}
	p.Done()
	r.Took = jsonDuration(time.Since(start))
	if o.json {
		return a.printJSON(r)
	}
	printPurge(a, r)
	return nil
}

// purgeTarget is the transcript purge works on: a path, a session id or
// unique prefix, or with --current the session this runs in, else this
// project's latest: never another project's (latestTranscript).
func (a *app) purgeTarget(pos []string, current bool) (string, error) {
	if !current {
		return a.findTranscript(pos[0])
	}
	c, err := a.latestTranscript(false)
	if errors.Is(err, errNoSession) {
		return "", hint(err, "--current never takes another project's session: name the one to purge, `ctxkeep purge SESSION` (`ctxkeep stats` lists the sessions)")
	}
	return c.Path, err
}

// applyPurge stores the stubbed results, then rewrites the transcript:
// what the stubs name is durable before anything names it.
// It returns the backup and the size of the new transcript.
func (a *app) applyPurge(ctx context.Context, t *purge.Transcript, plan *purge.Plan) (string, int64, error) {
	if len(plan.Stubs) > 0 {
		st, err := a.openStore(ctx)
		if err != nil {
			return "", 0, err
		}
		if err := plan.StoreStubs(ctx, st, a.Now()); err != nil {
			return "", 0, fmt.Errorf("storing the tool results: %w (the transcript was not changed)", err)
		}
	}
	progress.From(ctx).Start("writing the transcript and its backup", 0)
	content, err := plan.Render()
	if err != nil {
		return "", 0, err
	}
	backup, err := purge.Replace(t, content, a.Now())
	return backup, int64(len(content)), err
}

func printPurge(a *app, r purgeReport) {
	w := a.Stdout
	if r.Analysis != nil {
		printAnalysis(a, *r.Analysis)
	}
	verb, done := "purged", "backup: "+r.Backup
	switch {
	case r.DryRun:
		verb, done = "would purge", "(dry run: nothing was changed)"
	case !r.Changed:
		verb, done = "nothing to purge in", "the transcript was left as it was"
	}
	fmt.Fprintf(w, "%s %s (%s)\n", verb, r.Path, r.Live.Reason)
	fmt.Fprintf(w, "  size: %s → %s (%s)\n", text.Bytes(r.BytesBefore), text.Bytes(r.BytesAfter), percent(r.BytesAfter-r.BytesBefore, r.BytesBefore))
	var stored, stubs int64
	for _, s := range r.Stubs {
		stored += int64(s.Bytes)
		stubs += int64(len(s.Text()))
	}
	fmt.Fprintf(w, "  tool results over %d bytes stored and stubbed: %d (%s → %s)\n", r.Options.Threshold, len(r.Stubs), text.Bytes(stored), text.Bytes(stubs))
	fmt.Fprintf(w, "  thinking blocks removed: %d (%s); kept: %d\n", r.Thinking.Removed, text.Bytes(r.Thinking.Bytes), r.Thinking.Kept)
	fmt.Fprintf(w, "  repairs: %d\n", len(r.Repairs))
	for _, rp := range r.Repairs {
		fmt.Fprintf(w, "    line %d: %s: %s\n", rp.Line, rp.Kind, rp.Detail)
	}
	fmt.Fprintf(w, "  %s\n", done)
	if r.DryRun && r.Changed && r.Live.Live {
		fmt.Fprintln(w, "  note: the session is live: a real run is refused until it ends, or with --force")
	}
	if len(r.Stubs) > 0 && !r.DryRun {
		a.tip("a stored result comes back with `ctxkeep show ID` (the ids are in the stubs, and in `ctxkeep list --session %s`)", r.SessionID[:min(8, len(r.SessionID))])
	}
}

func printAnalysis(a *app, an purge.Analysis) {
	w := a.Stdout
	fmt.Fprintf(w, "session %s: %s in %d lines, %d compaction(s)\n", an.SessionID, text.Bytes(an.Bytes), an.Lines, an.Compactions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "RECORD TYPE\tLINES\tBYTES\tSHARE\t") // a report, not a list: the header stays
	for _, t := range an.ByType {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", t.Type, t.Lines, text.Bytes(t.Bytes), share(t.Bytes, an.Bytes))
	}
	tw.Flush()
	fmt.Fprintf(w, "tool results: %d, %s of text; thinking blocks: %d, %s\n", an.ToolResults, text.Bytes(an.ToolResultBytes), an.Thinking, text.Bytes(an.ThinkingBytes))
	if len(an.Biggest) > 0 {
		fmt.Fprintln(w, "biggest tool results:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  LINE\tBYTES\tTOOL\tTOOL_USE_ID\tCALL")
		for _, b := range an.Biggest {
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\n", b.Line, b.Bytes, b.Tool, b.ToolUseID, callCell(b.Input, 50))
		}
		tw.Flush()
	}
}
