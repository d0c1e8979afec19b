package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/text"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/logfile"
)

// Check statuses.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
)

// check is one line of the doctor's report.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Hint   string `json:"hint,omitempty"`
}

type doctorReport struct {
	OK     bool    `json:"ok"` // no check failed
	Checks []check `json:"checks"`
}

var doctorCmd = &command{
	name:    "doctor",
	usage:   "doctor [--json]",
	summary: "check the binary, the hooks, the MCP server, the config, the store, the log and the client",
	group:   groupSetup,
	long: `Runs ten checks and prints one line each (ok, warn or fail) with a hint when something needs
doing. Exit status 1 if a check fails (with --json, the document says "ok": false).

  binary  fails when the binary cannot find its own path
  hooks   fails when ctxkeep is in no settings file (nor in Codex's or Gemini CLI's), an event is missing, a registered command is
          not an executable file, a settings file is malformed or sets disableAllHooks; warns
          when a deadline (deadline.EVENT) does not fit in the timeout registered for the event
  codex   fails when ctxkeep's hooks are in $CODEX_HOME/hooks.json but an event is missing, a hook
          is not trusted (Codex would skip it without a word) or runs no executable, or hooks
          are off in config.toml; warns when Codex is here but ctxkeep is not registered with it
  gemini  fails when ctxkeep's hooks are in ~/.gemini/settings.json but an event is missing, a
          hook runs no executable (or a ctxkeep-hook of another version than ctxkeep), or
          hooksConfig.enabled is false; warns when Gemini CLI is here but ctxkeep is not
          registered with it
  mcp     fails when the MCP server registered for the user (~/.claude.json) does not answer
          initialize or does not list its three tools; warns when it is not registered (the
          agent then gets stored outputs back through its shell only), unless ctxkeep is
          registered with Codex only
  config  fails when a config file or CTXKEEP_* variable is invalid (the hooks pass through
          meanwhile); warns when ctxkeep is disabled
  store   fails when the index cannot be opened or fails SQLite's quick check, or a row has no
          blob; warns when the data folder is open to other users, or when there is no store
          yet (doctor does not create one: install does)
  log     warns when problems were logged in the last 24 hours
  client  the hook calls recorded and the Claude Code version they report, and what
          ` + "`claude --version`" + ` prints; warns when no hook has run yet
  applied the replacements the client took, as the transcripts show (those not checked yet
          are checked first), and what swap kept out; warns with the latest not applied`,
	examples: []string{"ctxkeep doctor", "ctxkeep doctor --json"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &doctorOptions{}
		fs.BoolVar(&o.json, "json", false, "print the report as JSON")
		return o.run
	},
}

type doctorOptions struct{ json bool }

func (o *doctorOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("doctor", pos); err != nil {
		return err
	}
	r := doctorReport{OK: true, Checks: []check{}}
	for _, c := range []func(context.Context) check{
		a.checkBinary, a.checkHooks, a.checkCodex, a.checkGemini, a.checkMCP, a.checkConfig, a.checkStore, a.checkLog, a.checkClient, a.checkReplacements,
	} {
		res := c(ctx)
		r.OK = r.OK && res.Status != statusFail
		r.Checks = append(r.Checks, res)
	}
	if o.json {
		if err := a.printJSON(r); err != nil {
			return err
		}
	} else {
		for _, c := range r.Checks {
			fmt.Fprintf(a.Stdout, "%-5s %-7s %s\n", c.Status, c.Name, c.Detail)
			if c.Hint != "" {
				fmt.Fprintf(a.Stdout, "%13s hint: %s\n", "", c.Hint)
			}
		}
	}
	if !r.OK {
		return silentError{code: exitError}
	}
	return nil
}

func (a *app) checkBinary(context.Context) check {
	c := check{Name: "binary"}
	exe, err := a.Executable()
	if err != nil {
		return fail(c, err.Error(), "")
	}
	c.Status, c.Detail = statusOK, fmt.Sprintf("%s (version %s)", exe, version())
	return c
}

// checkHooks looks for ctxkeep's handlers in the three settings files: every
// event registered, each command pointing at a binary that exists, each
// timeout leaving ctxkeep's deadline room to give up first.
func (a *app) checkHooks(context.Context) check {
	c := check{Name: "hooks"}
	found := a.installedScopes()
	if len(found) == 0 && a.codexInstalled() {
		c.Status, c.Detail = statusOK, "not registered with Claude Code (Codex only, see below)"
		return c
	}
	if len(found) == 0 && a.geminiInstalled() {
		c.Status, c.Detail = statusOK, "not registered with Claude Code (Gemini CLI only, see below)"
		return c
	}
	if len(found) == 0 {
		return fail(c, "ctxkeep is not registered in any Claude Code settings file", "run `ctxkeep install`")
	}
	cfg, _, _ := a.config()
	exe, _ := a.Executable()
	var details, problems, warnings, malformed []string
	programs := map[string]bool{} // the programs the handlers run
	for _, in := range found {
		if in.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", in.path, in.err))
			if errors.Is(in.err, claudecode.ErrMalformed) {
				malformed = append(malformed, in.path)
			}
			continue
		}
		events := map[string]bool{}
		for _, h := range in.hooks {
			events[h.Event] = true
			prog := claudecode.CommandProgram(h.Command)
			if st, err := os.Stat(prog); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				problems = append(problems, fmt.Sprintf("%s: %s runs %s, which is not an executable file", in.path, h.Event, prog))
			} else if !programs[prog] {
				programs[prog] = true
				details, warnings = hookProgram(exe, in.path, prog, details, warnings)
			}
			if cfg != nil {
				warnings = append(warnings, timeoutProblem(in.path, h, cfg.DeadlineFor(h.Event))...)
			}
		}
		var missing []string
		for _, ev := range config.HookEvents {
			if !events[ev] {
				missing = append(missing, ev)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s: no hook for %s", in.path, strings.Join(missing, ", ")))
		}
		details = append(details, fmt.Sprintf("%d/%d events in %s (%s)", len(config.HookEvents)-len(missing), len(config.HookEvents), in.path, in.scope))
		if disablesHooks(in.path) {
			problems = append(problems, fmt.Sprintf("%s sets disableAllHooks: no hook runs", in.path))
		}
	}
	c.Detail = strings.Join(details, "; ")
	switch {
	case len(malformed) > 0:
		return fail(c, strings.Join(append(problems, details...), "; "),
			fmt.Sprintf("fix %s by hand at the line and column named (install and uninstall refuse to edit a malformed file), then run `ctxkeep doctor` again", strings.Join(malformed, " and ")))
	case len(problems) > 0:
		return fail(c, strings.Join(append(problems, details...), "; "), "run `ctxkeep install` again to repair the registration")
	case len(warnings) > 0:
		c.Status, c.Detail = statusWarn, strings.Join(append(warnings, details...), "; ")
		c.Hint = "run `ctxkeep install` again: it registers each event with a timeout of its deadline + 5 s"
		return c
	}
	c.Status = statusOK
	return c
}

// hookProgram checks a program the handlers of the settings file at path
// run: ctxkeep-hook beside this binary, of this binary's version (a stale
// one runs an older ctxkeep's hooks), or this binary itself (`ctxkeep
// hook`, which works but starts slower when ctxkeep-hook is there).
func hookProgram(exe, path, prog string, details, warnings []string) ([]string, []string) {
	if exe == "" {
		return details, warnings
	}
	hookExe := hookExecutable(exe)
	switch {
	case sameFile(prog, exe) && hookExe != exe:
		details = append(details, fmt.Sprintf("note: %s runs `ctxkeep hook`; `ctxkeep install` registers %s, which starts faster", path, hookExe))
	case sameFile(prog, exe):
	case sameFile(prog, hookExe):
		out, err := exec.Command(prog, "version").Output()
		if v := strings.TrimSpace(string(out)); err != nil || v != version() {
			warnings = append(warnings, fmt.Sprintf("%s runs %s, version %q, but ctxkeep is version %q: `make install` installs both from one build", path, prog, v, version()))
		} else {
			details = append(details, fmt.Sprintf("hooks run %s (version %s)", prog, v))
		}
	default:
		details = append(details, fmt.Sprintf("note: %s runs %s, not this binary", path, prog))
	}
	return details, warnings
}

// timeoutProblem says when the client would kill a hook before ctxkeep
// gives up by itself: the timeout registered for the event must exceed
// the deadline by install's margin (clientTimeout).
func timeoutProblem(path string, h claudecode.Found, deadline time.Duration) []string {
	want := clientTimeout(deadline)
	switch {
	case h.Timeout == 0:
		return []string{fmt.Sprintf("%s: %s has no timeout (the client's default applies; SessionEnd hooks get almost no time)", path, h.Event)}
	case h.Timeout < want:
		return []string{fmt.Sprintf("%s: %s times out after %ds, but deadline.%s is %s: the client would kill the hook before ctxkeep gives up (fail open needs %ds)",
			path, h.Event, h.Timeout, h.Event, config.FormatDuration(deadline), want)}
	}
	return nil
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func disablesHooks(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var s struct {
		DisableAllHooks bool `json:"disableAllHooks"`
	}
	return json.Unmarshal(data, &s) == nil && s.DisableAllHooks
}

func (a *app) checkConfig(context.Context) check {
	c := check{Name: "config"}
	cfg, _, err := a.config()
	if err != nil {
		return fail(c, err.Error(), "fix the value named, in the file or variable named; the hooks pass through until then")
	}
	files := a.configFiles()
	c.Status, c.Detail = statusOK, "defaults"
	var used []string
	for _, f := range []string{files.User, files.Project} {
		if _, err := os.Stat(f); err == nil {
			used = append(used, f)
		}
	}
	if len(used) > 0 {
		c.Detail = "defaults + " + strings.Join(used, " + ")
	}
	if cfg.Disable || config.Truthy(a.Getenv("CTXKEEP_DISABLE")) {
		c.Status, c.Detail, c.Hint = statusWarn, "disabled: every hook passes through", "unset CTXKEEP_DISABLE or `disable` in the config"
	}
	return c
}

// checkStore opens (and if needed migrates) the store, then runs the quick
// integrity check: SQLite's quick_check and every row's blob present.
func (a *app) checkStore(ctx context.Context) check {
	c := check{Name: "store"}
	st, err := a.storeIfAny(ctx)
	if errors.Is(err, errNoStore) {
		d, _ := a.dirs()
		c.Status, c.Detail = statusWarn, fmt.Sprintf("no store yet in %s: the hooks store nothing until there is one", d.Data)
		c.Hint = "run `ctxkeep install`: it prepares the store"
		return c
	}
	if err != nil {
		return fail(c, err.Error(), "")
	}
	rep, err := st.Check(ctx, false)
	if err != nil {
		return fail(c, err.Error(), "")
	}
	v, _ := st.SchemaVersion(ctx)
	dir := st.Dir()
	c.Detail = fmt.Sprintf("%s: index v%d, %d blobs", dir, v, rep.Rows)
	if !rep.OK() {
		return fail(c, c.Detail+"; "+problemsOf(rep), "`ctxkeep check --repair` fixes what can be fixed without losing data")
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		c.Status, c.Hint = statusWarn, fmt.Sprintf("%s is open to other users (mode %#o): chmod 700 it", dir, fi.Mode().Perm())
		return c
	}
	c.Status, c.Detail = statusOK, c.Detail+", quick check passed"
	return c
}

func (a *app) checkLog(context.Context) check {
	c := check{Name: "log"}
	d, err := a.dirs()
	if err != nil {
		return fail(c, err.Error(), "")
	}
	entries, err := logfile.Since(d.Log(), a.Now().Add(-24*time.Hour), 3)
	if err != nil {
		return fail(c, err.Error(), "")
	}
	if len(entries) == 0 {
		c.Status, c.Detail = statusOK, "no problems logged in the last 24 hours"
		return c
	}
	last := entries[len(entries)-1]
	c.Status = statusWarn
	c.Detail = fmt.Sprintf("recent problems in %s; latest at %s: %s", d.Log(), last.Time.Local().Format("2006-01-02 15:04"), text.Cut(printable(last.Message), 300))
	c.Hint = "the hooks failed open (the agent was not affected); see the log for details"
	return c
}

// checkClient reports the hook calls recorded (journals are indexed
// first, as stats does), the Claude Code version the hooks last saw, and
// the one on PATH.
func (a *app) checkClient(ctx context.Context) check {
	c := check{Name: "client", Status: statusOK}
	var parts []string
	calls := 0
	if st, err := a.storeIfAny(ctx); err == nil {
		a.root.Ingest(ctx, st, "")
		sessions, _ := st.Stats(ctx, "")
		var last time.Time
		for _, s := range sessions {
			calls += s.Events
			if s.LastSeen.After(last) {
				last = s.LastSeen
			}
		}
		if calls > 0 {
			parts = append(parts, fmt.Sprintf("%d hook call(s) in %d session(s), the last at %s", calls, len(sessions), last.Local().Format("2006-01-02 15:04")))
		}
		if v, when, err := st.LastClientVersion(ctx); err == nil && v != "" {
			parts = append(parts, fmt.Sprintf("Claude Code %s seen by the hooks at %s", v, when.Local().Format("2006-01-02 15:04")))
		} else if calls > 0 {
			parts = append(parts, "no client version reported (AI_AGENT was not set)")
		}
	}
	if path, err := exec.LookPath("claude"); err == nil {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, path, "--version").Output()
		if err == nil {
			parts = append(parts, fmt.Sprintf("%s on PATH is %s", path, strings.TrimSpace(string(out))))
		}
	}
	if calls == 0 {
		parts = append([]string{"no hook has run yet"}, parts...)
		c.Status, c.Hint = statusWarn, fmt.Sprintf("start %s in a project; the next doctor run shows the calls and the version its hooks report", a.clientsToStart())
	}
	c.Detail = strings.Join(parts, "; ")
	return c
}

// checkReplacements reports the replacements the client did not take, as
// the transcripts show them (internal/proof): the tool, the shape sent and
// why, for the latest.
func (a *app) checkReplacements(ctx context.Context) check {
	c := check{Name: "applied", Status: statusOK}
	st, err := a.storeIfAny(ctx)
	if err != nil {
		c.Detail = "no store to check"
		return c
	}
	swaps, err := st.Swaps(ctx, "")
	if err != nil {
		return fail(c, err.Error(), "")
	}
	proved := false // replacements not checked yet are checked now, as Stop would
	for id, s := range swaps {
		if s.Unchecked == 0 {
			continue
		}
		if ss, err := st.Stats(ctx, id); err == nil && len(ss) == 1 && a.prove(ctx, st, id, ss[0].Transcript) {
			proved = true
		}
	}
	if proved {
		if swaps, err = st.Swaps(ctx, ""); err != nil {
			return fail(c, err.Error(), "")
		}
	}
	var p ctxkeep.Proof
	for _, s := range swaps {
		p.Applied, p.NotApplied, p.Unchecked, p.Printed = p.Applied+s.Applied, p.NotApplied+s.NotApplied, p.Unchecked+s.Unchecked, p.Printed+s.Printed
		p.KeptOutChars, p.UncheckedChars = p.KeptOutChars+s.KeptOutChars, p.UncheckedChars+s.UncheckedChars
	}
	c.Detail = fmt.Sprintf("replacements taken by the client: %d applied, %d not applied, %d not checked yet; kept out of the context, as the transcripts show: %s",
		p.Applied, p.NotApplied, p.Unchecked, keptOut(p))
	if p.NotApplied == 0 {
		return c
	}
	latest, err := st.NotApplied(ctx, 3)
	if err != nil {
		return fail(c, err.Error(), "")
	}
	c.Status = statusWarn
	for _, e := range latest {
		c.Detail += fmt.Sprintf("\n        %s %s (%s): %s", e.ID, e.Tool, e.ToolUseID, e.Verdict)
	}
	c.Hint = "the model saw those outputs whole: a client update may have changed the tool's output shape (please report it), or another PostToolUse hook answered the same calls"
	return c
}

// clientsToStart names the clients ctxkeep is registered with, for a
// hint: claude, codex, or both.
func (a *app) clientsToStart() string {
	claude, codex := len(a.installedScopes()) > 0, a.codexInstalled()
	switch {
	case codex && claude:
		return "claude or codex"
	case codex:
		return "codex"
	}
	return "claude"
}

// codexOnly reports whether ctxkeep is registered with Codex and not with
// Claude Code: Claude Code's checks then have nothing to check.
func (a *app) codexOnly() bool {
	return len(a.installedScopes()) == 0 && a.codexInstalled()
}

func fail(c check, detail, hint string) check {
	c.Status, c.Detail, c.Hint = statusFail, detail, hint
	return c
}

// problemsOf says what is wrong with the store, briefly.
func problemsOf(r ctxkeep.CheckReport) string {
	var out []string
	add := func(n int, what string) {
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(len(r.Missing), "rows without their blob")
	add(len(r.Corrupt), "blobs that do not match their hash")
	add(len(r.Dangling), "entries whose blob has no row")
	if len(r.IndexProblems) > 0 {
		out = append(out, "index: "+strings.Join(r.IndexProblems, "; "))
	}
	if len(r.FTSProblems) > 0 {
		out = append(out, "full-text index: "+strings.Join(r.FTSProblems, "; "))
	}
	return strings.Join(out, ", ")
}
