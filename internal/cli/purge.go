package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/purge"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

type purgeOptions struct {
	current      bool
	analyze      bool
	dryRun       bool
	repairOnly   bool
	threshold    int
	keepThinking bool
	force        bool
	asJSON       bool
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

// runPurge repairs a session's transcript so that the client can resume
// it, and slims it: large tool results go to the store, replaced by stubs,
// and thinking blocks outside the last turn go. The original is kept as a
// timestamped backup beside it. A session still being written to is
// refused without --force.
func runPurge(ctx context.Context, a *app, args []string) error {
	o := purgeOptions{threshold: purge.DefaultThreshold}
	fs := a.flags("purge")
	fs.BoolVar(&o.current, "current", false, "the session this command runs in ($CLAUDE_CODE_SESSION_ID), else the latest of this project")
	fs.BoolVar(&o.analyze, "analyze", false, "show where the transcript's bytes are and its structural problems; change nothing")
	fs.BoolVar(&o.dryRun, "dry-run", false, "show what purge would change and the size after; change nothing")
	fs.BoolVar(&o.repairOnly, "repair-only", false, "repair the structure only; slim nothing")
	fs.IntVar(&o.threshold, "threshold", purge.DefaultThreshold, "store and stub tool results larger than `N` bytes")
	fs.BoolVar(&o.keepThinking, "keep-thinking", false, "keep thinking blocks")
	fs.BoolVar(&o.force, "force", false, "purge even a session the client is still writing to (lines it appends meanwhile are kept)")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if (len(pos) == 1) == o.current || len(pos) > 1 {
		return usageErrorf("purge takes one session: an id, a unique prefix, a transcript path, or --current").
			withHint("run `ctxkeep stats` to list the sessions")
	}
	if o.threshold < purge.MinThreshold {
		return usageErrorf("bad --threshold %d: want at least %d bytes (a stub takes about 600)", o.threshold, purge.MinThreshold)
	}
	path, err := a.transcriptOf(pos, o.current)
	if err != nil {
		return err
	}
	start := time.Now()
	t, err := purge.Read(path)
	if err != nil {
		return err
	}
	r := purgeReport{Path: path, SessionID: t.SessionID, Live: purge.Live(t, a.claudeDir(), a.Now()),
		BytesBefore: int64(len(t.Data)), DryRun: o.dryRun || o.analyze,
		Options: purgeOptionsShown{Threshold: o.threshold, KeepThinking: o.keepThinking, RepairOnly: o.repairOnly}}
	plan := t.Plan(purge.Options{Threshold: o.threshold, KeepThinking: o.keepThinking, RepairOnly: o.repairOnly,
		Live: r.Live.Live && o.force})
	r.Repairs, r.Stubs, r.Thinking, r.Changed = orEmpty(plan.Repairs), orEmpty(plan.Stubs), plan.Thinking, plan.Changes()
	if o.analyze {
		an := t.Analyze()
		r.Analysis = &an
	}
	if !r.DryRun && r.Changed {
		if r.Live.Live && !o.force {
			return hint(fmt.Errorf("%s is live: %s", path, r.Live.Reason),
				"end that session first (or wait %s), or use --force: lines the client appends meanwhile are kept", purge.RecentWindow)
		}
		if r.Backup, err = a.applyPurge(ctx, t, plan); err != nil {
			return err
		}
	}
	content, err := plan.Render()
	if err != nil {
		return err
	}
	r.BytesAfter = int64(len(content))
	r.Took = jsonDuration(time.Since(start))
	if o.asJSON {
		return a.printJSON(r)
	}
	printPurge(a, r)
	return nil
}

// applyPurge stores the stubbed results, then rewrites the transcript:
// what the stubs name is durable before anything names it.
func (a *app) applyPurge(ctx context.Context, t *purge.Transcript, plan *purge.Plan) (string, error) {
	if len(plan.Stubs) > 0 {
		st, err := a.openStore(ctx)
		if err != nil {
			return "", err
		}
		if err := plan.StoreStubs(ctx, st, a.Now()); err != nil {
			return "", fmt.Errorf("storing the tool results: %w (the transcript was not changed)", err)
		}
	}
	content, err := plan.Render()
	if err != nil {
		return "", err
	}
	return purge.Replace(t, content, a.Now())
}

// claudeDir is the client's folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func (a *app) claudeDir() string {
	if dir := a.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(a.Getenv("HOME"), ".claude")
}

// transcriptOf finds the transcript purge works on: a path, a session id
// or unique prefix under the client's projects folder, or the current
// session.
func (a *app) transcriptOf(pos []string, current bool) (string, error) {
	root := filepath.Join(a.claudeDir(), "projects")
	if current {
		if id := a.Getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
			return findTranscript(root, id)
		}
		return latestIn(filepath.Join(root, projectKey(a.projectDir())))
	}
	arg := pos[0]
	if strings.HasSuffix(arg, ".jsonl") {
		if _, err := os.Stat(arg); err != nil {
			return "", err
		}
		return filepath.Abs(arg)
	}
	return findTranscript(root, arg)
}

// findTranscript finds the main transcript of the session id, or of the
// only session whose id starts with it, in any project.
func findTranscript(root, id string) (string, error) {
	if strings.ContainsAny(id, `/\*?[`) || id == "" {
		return "", usageErrorf("bad session id %q", id)
	}
	matches, err := filepath.Glob(filepath.Join(root, "*", id+"*.jsonl"))
	if err != nil {
		return "", err
	}
	var exact, prefix []string
	for _, m := range matches {
		switch strings.TrimSuffix(filepath.Base(m), ".jsonl") {
		case id:
			exact = append(exact, m)
		default:
			prefix = append(prefix, m)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(prefix) == 1:
		return prefix[0], nil
	case len(exact)+len(prefix) == 0:
		return "", hint(fmt.Errorf("no transcript of session %q under %s", id, root), "give the transcript's path instead")
	}
	return "", hint(fmt.Errorf("%q matches %d transcripts", id, len(exact)+len(prefix)), "give more of the id, or the transcript's path")
}

// latestIn is the most recently written transcript in a project folder.
func latestIn(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return "", err
	}
	var best string
	var bestTime time.Time
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.ModTime().After(bestTime) {
			best, bestTime = f, st.ModTime()
		}
	}
	if best == "" {
		return "", hint(fmt.Errorf("%w in %s", errNoSession, dir), "name the session: `ctxkeep purge SESSION`")
	}
	return best, nil
}

// projectKey is the folder the client gives a project under
// ~/.claude/projects: its path with every character but ASCII letters and
// digits turned into '-'.
func projectKey(dir string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, dir)
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
	fmt.Fprintf(w, "  size: %s → %s (%s)\n", humanBytes(r.BytesBefore), humanBytes(r.BytesAfter), percent(r.BytesAfter-r.BytesBefore, r.BytesBefore))
	var stored, stubs int64
	for _, s := range r.Stubs {
		stored += int64(s.Bytes)
		stubs += int64(len(s.Text()))
	}
	fmt.Fprintf(w, "  tool results over %d bytes stored and stubbed: %d (%s → %s)\n", r.Options.Threshold, len(r.Stubs), humanBytes(stored), humanBytes(stubs))
	fmt.Fprintf(w, "  thinking blocks removed: %d (%s); kept: %d\n", r.Thinking.Removed, humanBytes(r.Thinking.Bytes), r.Thinking.Kept)
	fmt.Fprintf(w, "  repairs: %d\n", len(r.Repairs))
	for _, rp := range r.Repairs {
		fmt.Fprintf(w, "    line %d: %s: %s\n", rp.Line, rp.Kind, rp.Detail)
	}
	fmt.Fprintf(w, "  %s\n", done)
	if len(r.Stubs) > 0 && !r.DryRun {
		fmt.Fprintln(w, "  a stored result comes back with `ctxkeep show ID` (the ids are in the stubs, and in `ctxkeep list --session "+r.SessionID[:min(8, len(r.SessionID))]+"`)")
	}
}

func printAnalysis(a *app, an purge.Analysis) {
	w := a.Stdout
	fmt.Fprintf(w, "session %s: %s in %d lines, %d compaction(s)\n", an.SessionID, humanBytes(an.Bytes), an.Lines, an.Compactions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "RECORD TYPE\tLINES\tBYTES\tSHARE\t")
	for _, t := range an.ByType {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", t.Type, t.Lines, humanBytes(t.Bytes), share(t.Bytes, an.Bytes))
	}
	tw.Flush()
	fmt.Fprintf(w, "tool results: %d, %s of text; thinking blocks: %d, %s\n", an.ToolResults, humanBytes(an.ToolResultBytes), an.Thinking, humanBytes(an.ThinkingBytes))
	if len(an.Biggest) > 0 {
		fmt.Fprintln(w, "biggest tool results:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  LINE\tBYTES\tTOOL\tTOOL_USE_ID\tCALL")
		for _, b := range an.Biggest {
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\n", b.Line, b.Bytes, b.Tool, b.ToolUseID, text.Cut(text.FirstLine(b.Input), 50))
		}
		tw.Flush()
	}
}

// orEmpty makes a nil list an empty one, for --json documents.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// percent is a change relative to of: "-19.3%".
func percent(n, of int64) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%+.1f%%", 100*float64(n)/float64(of))
}

// share is n as a part of of: "42.7%".
func share(n, of int64) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
