package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

var contextCmd = &command{
	name:    "context",
	usage:   "context [SESSION] [--json] [--html FILE] [--width N]",
	summary: "show where a session's context went: by category, stale output, timeline",
	group:   groupContext,
	long: `Where a session's context went: the exact size (from the usage the client records) and the
client's thresholds, a breakdown by category and tool of what the model is sent now, stale tool
output and duplicate reads, the responses and prompts left before auto-compaction at the recent
rate, and a chart of the context over the whole session with compactions (▲) and ctxkeep's swaps
(◆). What swap kept out is what the transcript shows: the replacements the client applied and the
outputs the wrapper printed (the ones not checked yet are checked first; those not applied are
named apart). A session whose context went past the configured window without compacting has a
larger one: the report takes the next known window (1M) and says it was inferred.

SESSION is a session id, a unique prefix of one, or a transcript path. Default: the session the
command runs in (from the agent's Bash), else this project's latest (Claude Code's, else
Codex's), else the latest of any project, which the report then says is another project's (a
"note:" line first, "other_project" and "note" with --json, and at the head of the --html page).
--html writes a self-contained page (no network, no external assets). Definitions: docs/WATCH.md.

For a Codex CLI session (its id or a prefix under $CODEX_HOME/sessions, or its rollout) it
prints the usage part only, with no page: the context now, the window and the compaction point,
the peak, the compactions and what swap kept out (docs/CODEX.md). The same for a Gemini CLI
session (its id or a prefix, or its chat under ~/.gemini/tmp): its context against the
compression point (docs/GEMINI.md).`,
	examples: []string{"ctxkeep context", "ctxkeep context 258c --html context.html", "ctxkeep context --json"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &contextOptions{}
		fs.BoolVar(&o.json, "json", false, "print the report as JSON")
		fs.StringVar(&o.html, "html", "", "also write the report as a self-contained HTML page to `FILE`")
		fs.IntVar(&o.width, "width", 100, "draw the terminal chart `N` columns wide, 40 or more")
		return o.run
	},
}

type contextOptions struct {
	json  bool
	html  string
	width int
}

func (o *contextOptions) run(ctx context.Context, a *app, pos []string) error {
	if len(pos) > 1 {
		return usageErrorf("context takes one session, got %d arguments", len(pos)).withHint("run `ctxkeep help context`")
	}
	if o.width < 40 {
		return usageErrorf("bad --width %d: want 40 columns or more", o.width)
	}
	if o.html != "" {
		if err := writableFolder(o.html); err != nil {
			return err
		}
	}
	arg := ""
	if len(pos) == 1 {
		arg = pos[0]
	}
	c := chosen{Path: arg}
	if arg == "" {
		var err error
		if c, err = a.latestSession(); err != nil {
			return hint(err, "name a session (an id, a unique prefix or a transcript path)")
		}
		arg = c.Path
	}
	if path, ok := a.findCodex(arg); ok {
		if o.html != "" { // it wrote nothing and said nothing
			return hint(fmt.Errorf("--html: %s is a Codex session, whose report has no page: only its usage part", path),
				"drop --html: `ctxkeep context %s` prints it, --json as a document", arg)
		}
		return a.codexContext(ctx, path, o.json, c)
	}
	if path, ok := a.findGemini(arg); ok {
		if o.html != "" {
			return hint(fmt.Errorf("--html: %s is a Gemini CLI session, whose report has no page: only its usage part", path),
				"drop --html: `ctxkeep context %s` prints it, --json as a document", arg)
		}
		return a.geminiContext(ctx, path, o.json, c)
	}
	r, err := a.contextReport(ctx, arg)
	if err != nil {
		return err
	}
	if o.html != "" {
		if c.Elsewhere != "" { // the page, read later, says it too
			r.Note = c.Note(a.projectDir())
		}
		if err := writeHTMLFile(o.html, r); err != nil {
			return err
		}
	}
	switch {
	case o.json:
		return a.printJSON(contextDoc{r, a.otherProject(c)})
	case o.html != "":
		a.sayElsewhere(c)
		fmt.Fprintf(a.Stdout, "wrote %s\n", o.html)
	default:
		a.sayElsewhere(c)
		breakdown.WriteText(a.Stdout, r, o.width)
	}
	return nil
}

// contextDoc is `ctxkeep context --json`: the report, and what it says
// of a session taken from another project.
type contextDoc struct {
	*breakdown.Report
	otherProject
}

// writableFolder checks, before any work, that the folder of a file to
// write is there: the error names it, not the temporary file the write
// would have started with.
func writableFolder(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return hint(fmt.Errorf("cannot write %s: there is no folder %s", path, dir), "create it first (mkdir -p %s), or name a file in a folder that exists", dir)
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a folder", path, dir)
	}
	return nil
}

func writeHTMLFile(path string, r *breakdown.Report) error {
	var b strings.Builder
	if err := breakdown.WriteHTML(&b, r); err != nil {
		return err
	}
	// The page names files and commands of the session: private like the rest.
	return fsx.WriteFileReplace(path, []byte(b.String()), fsx.FilePerm)
}

func (a *app) contextReport(ctx context.Context, arg string) (*breakdown.Report, error) {
	path, err := a.findTranscript(arg)
	if err != nil {
		return nil, err
	}
	session := sessionOf(path)
	p := a.progress()
	defer p.Done()
	p.Start("reading "+filepath.Base(path), 0)
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		return nil, err
	}
	cfg, _, err := a.config()
	if err != nil {
		return nil, err
	}
	d, err := a.dirs()
	if err != nil {
		return nil, err
	}
	var status watch.StatusState // the window the client reported, if any
	_ = watch.Load(watch.StatusPath(watch.Dir(d.State), session), &status)
	env := watch.ReadClientEnv(a.clientGetenv())
	p.Start("counting tokens", 0)
	r, err := breakdown.Build(breakdown.Input{
		Session: session, Transcript: path, Records: f.Records, Problems: len(f.Problems),
		Swaps: a.sessionSwaps(ctx, session, path),
		Limits: func(model string, peak int64) watch.Limits {
			return watch.LimitsFor(cfg, model, status.Window, peak, env)
		},
		Counter: breakdown.Tokenizer(), Now: a.Now(),
	})
	if errors.Is(err, breakdown.ErrEmpty) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r != nil {
		r.Categories = orEmpty(r.Categories)
		r.Timeline.Points, r.Timeline.Compactions, r.Timeline.Swaps = orEmpty(r.Timeline.Points), orEmpty(r.Timeline.Compactions), orEmpty(r.Timeline.Swaps)
	}
	return r, err
}

// sessionSwaps lists what swap stored of the session's main thread, each
// with what the transcript shows of it: the replacements not checked yet
// are checked first (internal/proof), as Stop would. Without an index
// there is nothing to mark, which is not an error.
func (a *app) sessionSwaps(ctx context.Context, session, transcript string) []breakdown.Swap {
	st, err := a.storeIfAny(ctx)
	if err != nil {
		return nil
	}
	a.prove(ctx, st, session, transcript)
	entries, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: session})
	if err != nil {
		return nil
	}
	var out []breakdown.Swap
	for _, e := range entries {
		if e.AgentID == "" {
			out = append(out, breakdown.Swap{ID: e.ID, ToolUseID: e.ToolUseID, Tool: e.Tool, Tokens: int64(e.Chars-e.ViewChars) / 4, Status: swapStatus(e)})
		}
	}
	return out
}

// swapStatus is what the transcript shows of an entry (its verdict).
func swapStatus(e ctxkeep.Entry) string {
	switch {
	case e.Replacement == "":
		return breakdown.Printed
	case e.Applied == nil:
		return breakdown.Unchecked
	case *e.Applied:
		return breakdown.Applied
	}
	return breakdown.NotApplied
}

// clientGetenv looks a variable up as the client would see it: the
// settings' "env" (local over project over user: the client applies them
// to its own environment) over this process's environment.
func (a *app) clientGetenv() func(string) string {
	var layers []map[string]string
	for _, scope := range []claudecode.Scope{claudecode.Local, claudecode.Project, claudecode.User} {
		data, err := os.ReadFile(a.settingsPath(scope))
		if err != nil {
			continue
		}
		if env, err := claudecode.Env(data); err == nil {
			layers = append(layers, env)
		}
	}
	return func(name string) string {
		for _, env := range layers {
			if v, ok := env[name]; ok {
				return v
			}
		}
		return a.Getenv(name)
	}
}
