package cli

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/prune"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/ui"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

var uiCmd = &command{
	name:    "ui",
	usage:   "ui [--addr HOST:PORT] [--no-open]",
	summary: "browse sessions, their context, what was kept out and what came back, live, in a local web page",
	group:   groupContext,
	long: `Starts a local web server and opens the browser on it. The first line printed is the URL to open,
with its access token; Ctrl-C stops the server. Pages: Sessions (every archived session of every
project and client: steps, compactions, peak context, tokens kept out, outputs stored, pins),
a session (its timeline beside the context per request with the client's thresholds, each
compaction with what ctxkeep's restore block put back, each swapped output as the model saw it
with the exact original one click away, the warnings ctxkeep gave; live while the session runs),
Now (what fills the latest session of each project, what was kept out, pin and unpin), Search
(the archive, and the team archive when configured; a step recalled in place), Store (size,
retention, what the next prune would remove, the integrity check).

Safe by default: it listens on 127.0.0.1 only unless --addr says otherwise (then it warns);
every request needs the token (a cookie set from the printed URL, or ?token= on any URL); a
request whose Host is not the address it listens on is refused; pinning and unpinning are POSTs
checked against Origin and Sec-Fetch-Site and carrying a CSRF token; secrets are redacted from
every page. It only reads the store, except for pins. docs/UI.md.`,
	examples: []string{"ctxkeep ui", "ctxkeep ui --addr 127.0.0.1:8765 --no-open"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &uiOptions{}
		fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: a free one); another host than loopback makes the pages reachable from other machines")
		fs.BoolVar(&o.noOpen, "no-open", false, "do not start a browser")
		return o.run
	},
}

type uiOptions struct {
	addr   string
	noOpen bool
}

func (o *uiOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("ui", pos); err != nil {
		return err
	}
	cfg, _, err := a.config()
	if err != nil {
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
	ln, loopback, err := ui.Listen(o.addr)
	if err != nil {
		return usageErrorf("%v", err)
	}
	env := watch.ReadClientEnv(a.clientGetenv())
	codexLimit := codex.AutoCompactLimit(a.codexHome())
	// The user's and the system's compression threshold: the page's
	// limits name no project, whose own .gemini/settings.json may differ.
	geminiThreshold := gemini.CompressionThreshold(a.Getenv, "")
	opt := ui.Options{
		Store: st, Config: cfg, StateDir: d.State, StoreDir: st.Dir(), Now: a.Now, Version: version(), Log: a.Stderr,
		Limits: func(agent, model string, window, peak int64) watch.Limits {
			switch agent {
			case ctxkeep.AgentCodex:
				return watch.Fixed(codex.Thresholds(window, codexLimit))
			case ctxkeep.AgentGemini:
				return watch.Fixed(gemini.Thresholds(model, geminiThreshold))
			}
			return watch.LimitsFor(cfg, model, window, peak, env)
		},
		Check: func(ctx context.Context) (ui.CheckReport, error) { return uiCheck(ctx, st, a) },
	}
	if cfg.Team.DSN != "" {
		opt.Team = func(ctx context.Context) (ui.Team, func(), error) {
			db, _, err := a.openTeam(ctx, false)
			if err != nil {
				return nil, nil, err
			}
			return teamArchive{db}, func() { db.Close() }, nil
		}
	}
	srv, err := ui.New(opt)
	if err != nil {
		ln.Close()
		return err
	}
	srv.Bind(ln)
	fmt.Fprintln(a.Stdout, srv.URL())
	if !loopback {
		fmt.Fprintf(a.Stderr, "ctxkeep ui: warning: listening on %s, reachable from other machines: anyone with the URL's token can read your sessions, over unencrypted HTTP\n", ln.Addr())
	}
	fmt.Fprintln(a.Stderr, "ctxkeep ui: serving; Ctrl-C stops it")
	if !o.noOpen {
		openBrowser(srv.URL())
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	return srv.Serve(ctx, ln)
}

// uiCheck is `ctxkeep check` (without --repair) as the Store page shows
// it.
func uiCheck(ctx context.Context, st ctxkeep.Local, a *app) (ui.CheckReport, error) {
	rep, err := st.Check(ctx, true)
	if err != nil {
		return ui.CheckReport{}, err
	}
	r := ui.CheckReport{OK: rep.OK(), Blobs: rep.Blobs, Rows: rep.Rows}
	add := func(what string, list []string) {
		for _, s := range list {
			r.Problems = append(r.Problems, what+": "+s)
		}
	}
	add("index", rep.IndexProblems)
	add("full-text index", rep.FTSProblems)
	add("blob file missing", hashes(rep.Missing))
	add("blob does not match its SHA-256", hashes(rep.Corrupt))
	add("entry whose blob has no row", rep.Dangling)
	copies := 0
	if state, err := prune.Read(ctx, st); err == nil {
		c, _ := prune.CopyLeftovers(prune.CopyDirs(state), a.Now())
		copies = len(c)
	}
	if n := len(rep.Unreferenced) + rep.Temps + copies; n > 0 {
		r.Garbage = fmt.Sprintf("garbage: %s without a row, %s, %s (`ctxkeep prune` removes them once an hour old)",
			text.Plural(len(rep.Unreferenced), "blob"), text.Plural(rep.Temps, "temporary file"), fmt.Sprintf("%d unfinished readable copy file(s)", copies))
	}
	return r, nil
}

// openBrowser starts the system's browser on url, without waiting for it.
func openBrowser(url string) {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return
	}
	if _, err := exec.LookPath(name); err != nil {
		return
	}
	cmd := exec.Command(name, url)
	cmd.Stdout, cmd.Stderr = nil, nil
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
