package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/replay"
	"github.com/ctxkeep/ctxkeep/internal/sample"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var replayCmd = &command{
	name:    "replay",
	usage:   "replay [SESSION ... | --sample] [--views] [--json]",
	summary: "measure what ctxkeep would have kept out of a recorded session",
	group:   groupContext,
	long: `Runs recorded Claude Code transcripts, Codex rollouts and Gemini CLI chats through the swap
policy with the effective configuration, storing nothing, and reports per tool: tool results, how
many would have been swapped out (or run through the wrapper), characters and estimated tokens
(characters / 4) that entered the context, and those that would have with ctxkeep; failure lines
kept. Only main-thread results count; failed Bash results count as swappable only when the
wrapper would have run the command (Codex and Gemini CLI send failures to their hooks too: there,
every output over its threshold counts). A Gemini CLI chat holds an output over 40,000 characters
as the CLI's cut of it, which is what its model got, and is replayed from that. A session
recorded with ctxkeep holds the views the model got: the outputs ctxkeep replaced count from the
originals it stored (read-only) when the transcript holds the replacement, so the figures are the
same as for a session recorded without it; a replacement the client did not apply counts as the
transcript holds it (the output), one whose original is no longer stored as its view, each
counted; an output the wrapper captured counts as the transcript holds it (without ctxkeep, the
client would have cut it). The same input gives the same report.

SESSION is a transcript, rollout or chat path, a session id or a unique prefix of one. Without
one it replays the Claude Code session the command runs in, else this project's latest (Claude
Code's, else Codex's, else Gemini CLI's), else the latest of any project, which the report then
says is another project's (a "note:" line first, "other_project" and "note" with --json); when
there is none, or with --sample, the built-in sample session (a real public session, MIT
License, see internal/sample), whose figures are the same on every machine. --views prints every
view the model would have seen.`,
	examples: []string{"ctxkeep replay", "ctxkeep replay --sample", "ctxkeep replay ~/.claude/projects/*/*.jsonl --json",
		"ctxkeep replay ~/.codex/sessions/2026/*/*/rollout-*.jsonl", "ctxkeep replay ~/.gemini/tmp/*/chats/session-*.jsonl"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &replayOptions{}
		fs.BoolVar(&o.json, "json", false, "print the report as JSON")
		fs.BoolVar(&o.views, "views", false, "also print every view the model would have seen")
		fs.BoolVar(&o.sample, "sample", false, "replay the built-in sample session: "+sample.Source)
		return o.run
	},
}

type replayOptions struct{ json, views, sample bool }

// sampleAs is where the built-in sample is replayed as being: a fixed
// path, so that its views, and the figures in the README, are the same on
// every machine (they name where a readable copy would be).
const sampleAs = "/home/you/.claude/projects/-home-you-spotter/" + sample.Name

// storedOriginals are the outputs ctxkeep replaced while the sessions
// ran, read from the store (read-only: replay writes nothing); nil
// without a store. A store that is there but cannot be read is reported,
// not passed over: the sessions it recorded would count their views.
func (a *app) storedOriginals(ctx context.Context) (*originals, error) {
	r, err := a.env()
	if err != nil {
		return nil, nil
	}
	if _, err := os.Stat(r.Dirs.IndexDB()); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // nothing recorded on this machine
	}
	st, err := r.Store(ctx, ctxkeep.OpenReadOnly)
	if err != nil {
		return nil, err
	}
	return &originals{ctx: ctx, st: st, sessions: map[string]map[string]ctxkeep.Entry{}, ids: map[string]map[string]ctxkeep.Entry{}}, nil
}

// originals reads a session's entries once, then the blobs asked for.
type originals struct {
	ctx      context.Context
	st       ctxkeep.Local
	sessions map[string]map[string]ctxkeep.Entry // session → tool_use_id → entry
	ids      map[string]map[string]ctxkeep.Entry // session → entry id → entry
	err      error                               // the first query that failed
}

// load reads a session's entries, once.
func (o *originals) load(session string) {
	if _, ok := o.sessions[session]; ok {
		return
	}
	byUse, byID := map[string]ctxkeep.Entry{}, map[string]ctxkeep.Entry{}
	es, err := o.st.Entries(o.ctx, ctxkeep.EntryFilter{Session: session})
	if err != nil && o.err == nil {
		o.err = err
	}
	for _, e := range es {
		if e.ToolUseID != "" && e.Replacement != "" { // a PostToolUse reply's, not the wrapper's
			byUse[e.ToolUseID] = e
		}
		byID[e.ID] = e
	}
	o.sessions[session], o.ids[session] = byUse, byID
}

func (o *originals) entry(session, toolUseID string) (ctxkeep.Entry, bool) {
	o.load(session)
	e, ok := o.sessions[session][toolUseID]
	return e, ok
}

func (o *originals) Stored(session, entryID string) (string, error) {
	o.load(session)
	e, ok := o.ids[session][entryID]
	if !ok {
		return "", ctxkeep.ErrNotFound
	}
	data, err := o.st.Open(o.ctx, e.Hash)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

func (o *originals) Replacement(session, toolUseID string) (string, bool) {
	e, ok := o.entry(session, toolUseID)
	return e.Replacement, ok
}

func (o *originals) Original(session, toolUseID string) (string, error) {
	e, ok := o.entry(session, toolUseID)
	if !ok {
		return "", ctxkeep.ErrNotFound
	}
	data, err := o.st.Open(o.ctx, e.Hash)
	if err != nil {
		return "", err // pruned meanwhile: the transcript's text counts
	}
	return string(data), nil
}

// run replays recorded sessions through the swap policy and reports what
// would have entered the context with ctxkeep: nothing is stored.
func (o *replayOptions) run(ctx context.Context, a *app, args []string) error {
	var paths []string
	for _, arg := range args {
		path, ok := a.findCodex(arg)
		if !ok {
			path, ok = a.findGemini(arg)
		}
		if !ok {
			var err error
			if path, err = a.findTranscript(arg); err != nil {
				if errors.Is(err, ctxkeep.ErrNotFound) && !strings.ContainsRune(arg, filepath.Separator) && !strings.HasSuffix(arg, ".jsonl") {
					return hint(ctxkeep.Errorf(ctxkeep.ErrNotFound, "no session %q: no Claude Code transcript under %s, no Codex rollout under %s, no Gemini CLI chat under %s",
						arg, a.projectsDir(), codex.SessionsDir(a.codexHome()), filepath.Join(a.geminiHome(), "tmp")), "give the transcript's, rollout's or chat's path, or run `ctxkeep stats` for the sessions ctxkeep saw")
				}
				return err
			}
		}
		paths = append(paths, path)
	}
	names := slices.Clone(paths)
	var picked chosen
	if len(paths) == 0 && !o.sample {
		c, err := a.latestSession()
		switch {
		case errors.Is(err, errNoSession):
			o.sample = true
			if !a.jsonOut {
				fmt.Fprintf(a.Stderr, "ctxkeep: no Claude Code, Codex or Gemini CLI session here yet; replaying the built-in sample, %s\n", sample.Source)
			}
		case err != nil:
			return err
		default:
			picked, paths, names = c, []string{c.Path}, []string{c.Path}
		}
	}
	if o.sample {
		tmp, err := os.MkdirTemp("", "ctxkeep-sample-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		path, err := sample.WriteTo(tmp)
		if err != nil {
			return err
		}
		paths, names = append(paths, path), append(names, sampleAs)
	}
	cfg, _, err := a.config()
	if err != nil {
		return err
	}
	orig, storeErr := a.storedOriginals(ctx)
	var originals replay.Originals
	if orig != nil {
		originals = orig
	}
	r, err := replay.FilesAs(paths, names, cfg, originals)
	if err != nil {
		return err
	}
	if orig != nil && orig.err != nil {
		storeErr = orig.err
	}
	if storeErr != nil { // said, not passed over: the figures of a session recorded with ctxkeep depend on it
		r.StoreError = storeErr.Error()
	}
	if o.sample {
		r.Transcripts[len(r.Transcripts)-1] = "built-in sample " + sample.Name + ", " + sample.Source
	}
	r.ByTool = orEmpty(r.ByTool)
	if o.json {
		return a.printJSON(replayDoc{r, a.otherProject(picked)})
	}
	a.sayElsewhere(picked)
	if o.views {
		for _, v := range r.Views {
			fmt.Fprintf(a.Stdout, "── %s %s (%s) ──\n%s\n", v.Tool, v.ToolUseID, filepath.Base(v.Transcript), v.View)
		}
	}
	printReplay(a, r)
	return nil
}

// replayDoc is `ctxkeep replay --json`: the report, and what it says of a
// session taken from another project.
type replayDoc struct {
	replay.Report
	otherProject
}

func printReplay(a *app, r replay.Report) {
	w := a.Stdout
	fmt.Fprintf(w, "replayed %d transcript(s), %d tool results", len(r.Transcripts), r.Total.Calls)
	if len(r.Transcripts) == 1 {
		fmt.Fprintf(w, ": %s", r.Transcripts[0])
	}
	fmt.Fprint(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TOOL\tRESULTS\tSWAPPED\tCONDENSED\tCHARS BEFORE\t~TOKENS\tCHARS AFTER\t~TOKENS\tREMAINS\t")
	for _, t := range append(r.ByTool, r.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f%%\t\n", t.Tool, t.Calls, t.Swapped, t.Condensed,
			t.CharsBefore, t.TokensBefore(), t.CharsAfter, t.TokensAfter(), 100*t.Ratio())
	}
	tw.Flush()
	fmt.Fprintf(w, "\nWith ctxkeep, %.1f%% of the tool output would have entered the context (~%d tokens kept out).\n",
		100*r.Total.Ratio(), r.Total.TokensBefore()-r.Total.TokensAfter())
	if r.Total.SwappedChars > 0 {
		fmt.Fprintf(w, "The %s swapped out: %d characters, replaced by %d characters of views (%.1f%%).\n",
			text.Plural(r.Total.Swapped, "output"), r.Total.SwappedChars, r.Total.ViewChars, 100*float64(r.Total.ViewChars)/float64(r.Total.SwappedChars))
	}
	if r.Total.CondensedChars > 0 {
		fmt.Fprintf(w, "The %s condensed: %d characters, down to %d (%.1f%%), every failure with its causes kept.\n",
			text.Plural(r.Total.Condensed, "output"), r.Total.CondensedChars, r.Total.CondensedTo, 100*float64(r.Total.CondensedTo)/float64(r.Total.CondensedChars))
	}
	if r.Total.Pointers > 0 {
		fmt.Fprintf(w, "%d unchanged re-read(s) would have been answered by a pointer to the earlier Read.\n", r.Total.Pointers)
	}
	if r.Total.Wrapped > 0 {
		fmt.Fprintf(w, "%d failed command(s) would have run through the wrapper and been kept whole.\n", r.Total.Wrapped)
	}
	fmt.Fprintf(w, "Failure lines in the outputs swapped out or condensed: %d; shown: %d (the rest counted, all of them at `ctxkeep show ID --failures`).\n",
		r.Total.FailureLines, r.Total.FailureShown)
	if r.Replaced > 0 {
		fmt.Fprintf(w, "%s had already been replaced by ctxkeep when the session ran (the transcript holds the replacements): counted from the originals it stored.\n",
			text.Plural(r.Replaced, "output"))
	}
	if r.NotApplied > 0 {
		fmt.Fprintf(w, "%s ctxkeep returned when the session ran the client did not apply: counted as the transcript holds them (the model saw the outputs).\n",
			text.Plural(r.NotApplied, "replacement"))
	}
	if r.Unavailable > 0 {
		fmt.Fprintf(w, "%s ctxkeep replaced when the session ran %s no longer stored (pruned): counted as the transcript holds them, their views.\n",
			text.Plural(r.Unavailable, "output"), map[bool]string{true: "is", false: "are"}[r.Unavailable == 1])
	}
	if r.StoreError != "" {
		fmt.Fprintf(w, "The store could not be read (%s): outputs ctxkeep replaced when a session ran count as their views. `ctxkeep check` says more.\n", r.StoreError)
	}
	if r.BadLines > 0 {
		fmt.Fprintf(w, "%d transcript line(s) could not be read and were skipped.\n", r.BadLines)
	}
}
