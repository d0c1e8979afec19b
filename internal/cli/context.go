package cli

import (
	"context"
	"errors"
	"fmt"
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

type contextOptions struct {
	asJSON bool
	html   string
	width  int
}

// runContext reports where a session's context went.
func runContext(ctx context.Context, a *app, args []string) error {
	var o contextOptions
	fs := a.flags("context")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	fs.StringVar(&o.html, "html", "", "also write the report as a self-contained HTML page to `FILE`")
	fs.IntVar(&o.width, "width", 100, "columns of the terminal chart")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("context takes one session, got %d arguments", len(pos)).withHint("run `ctxkeep context -h` for its flags")
	}
	arg := ""
	if len(pos) == 1 {
		arg = pos[0]
	}
	if path, ok := a.findCodex(arg); ok {
		return a.codexContext(ctx, path, o.asJSON)
	}
	r, err := a.contextReport(ctx, arg)
	if err != nil {
		return err
	}
	if o.html != "" {
		if err := writeHTMLFile(o.html, r); err != nil {
			return err
		}
	}
	switch {
	case o.asJSON:
		return a.printJSON(r)
	case o.html != "":
		fmt.Fprintf(a.Stdout, "wrote %s\n", o.html)
	default:
		breakdown.WriteText(a.Stdout, r, o.width)
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
	session := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		return nil, err
	}
	cfg, _, err := a.config()
	if err != nil {
		return nil, hint(err, "edit the file named above, or unset the variable")
	}
	d, err := a.dirs()
	if err != nil {
		return nil, err
	}
	var status watch.StatusState // the window the client reported, if any
	_ = watch.Load(watch.StatusPath(watch.Dir(d.State), session), &status)
	env := watch.ReadClientEnv(a.clientGetenv())
	r, err := breakdown.Build(breakdown.Input{
		Session: session, Transcript: path, Records: f.Records, Problems: len(f.Problems),
		Swaps:   a.sessionSwaps(ctx, session),
		Limits:  func(model string) watch.Limits { return watch.Compute(watch.Window(cfg, model, status.Window), env) },
		Counter: breakdown.Tokenizer(), Now: a.Now(),
	})
	if errors.Is(err, breakdown.ErrEmpty) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, err
}

// sessionSwaps lists what swap kept out of the session's main thread.
// Without an index there is nothing to mark, which is not an error.
func (a *app) sessionSwaps(ctx context.Context, session string) []breakdown.Swap {
	st, err := a.openStore(ctx)
	if err != nil {
		return nil
	}
	entries, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: session})
	if err != nil {
		return nil
	}
	var out []breakdown.Swap
	for _, e := range entries {
		if e.AgentID == "" {
			out = append(out, breakdown.Swap{ID: e.ID, ToolUseID: e.ToolUseID, Tool: e.Tool, Tokens: int64(e.Chars-e.ViewChars) / 4})
		}
	}
	return out
}

// findTranscript resolves SESSION: a transcript path, a session id or a
// unique prefix of one, or (empty) the latest session.
func (a *app) findTranscript(arg string) (string, error) {
	switch {
	case arg == "":
		return a.latestTranscript()
	case strings.HasSuffix(arg, ".jsonl") || strings.ContainsRune(arg, filepath.Separator):
		if _, err := os.Stat(arg); err != nil {
			return "", err
		}
		return arg, nil
	}
	if err := validPrefix(arg); err != nil {
		return "", err
	}
	matches, err := filepath.Glob(filepath.Join(a.projectsRoot(), "*", arg+"*.jsonl"))
	if err != nil {
		return "", err
	}
	switch len(matches) {
	case 0:
		return "", hint(fmt.Errorf("no session %q under %s", arg, a.projectsRoot()), "give a transcript path, or run `ctxkeep stats` for the sessions ctxkeep saw")
	case 1:
		return matches[0], nil
	}
	return "", hint(fmt.Errorf("%q matches %d sessions", arg, len(matches)), "give more of the id")
}

// validPrefix refuses what is not the start of a session id: a prefix is
// used in a file pattern.
func validPrefix(s string) error {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return usageErrorf("%q is not a session id or a transcript path", s)
		}
	}
	return nil
}

// projectsRoot is the client's folder of transcripts.
func (a *app) projectsRoot() string {
	if dir := a.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "projects")
	}
	return filepath.Join(a.Getenv("HOME"), ".claude", "projects")
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
