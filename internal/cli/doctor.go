package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/store"
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

func runDoctor(ctx context.Context, a *app, args []string) error {
	var asJSON bool
	fs := a.flags("doctor")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	r := doctorReport{OK: true}
	for _, c := range []func(context.Context) check{
		a.checkBinary, a.checkHooks, a.checkConfig, a.checkStore, a.checkLog, a.checkClient, a.checkReplacements,
	} {
		res := c(ctx)
		r.OK = r.OK && res.Status != statusFail
		r.Checks = append(r.Checks, res)
	}
	if asJSON {
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
// event registered, each command pointing at a binary that exists.
func (a *app) checkHooks(context.Context) check {
	c := check{Name: "hooks"}
	found := a.installedScopes()
	if len(found) == 0 {
		return fail(c, "ctxkeep is not registered in any Claude Code settings file", "run `ctxkeep install`")
	}
	exe, _ := a.Executable()
	var details, problems []string
	for _, in := range found {
		if in.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", in.path, in.err))
			continue
		}
		events := map[string]bool{}
		for _, h := range in.hooks {
			events[h.Event] = true
			prog := claudecode.CommandProgram(h.Command)
			if st, err := os.Stat(prog); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				problems = append(problems, fmt.Sprintf("%s: %s runs %s, which is not an executable file", in.path, h.Event, prog))
			} else if exe != "" && !sameFile(prog, exe) {
				details = append(details, fmt.Sprintf("note: %s runs %s, not this binary", in.path, prog))
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
	if len(problems) > 0 {
		return fail(c, strings.Join(append(problems, details...), "; "), "run `ctxkeep install` again to repair the registration")
	}
	c.Status = statusOK
	return c
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
		return fail(c, err.Error(), "fix the value named above; the hooks pass through until then")
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
	st, err := a.openStore(ctx)
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
	c.Detail = fmt.Sprintf("recent problems in %s; latest at %s: %s", d.Log(), last.Time.Local().Format("2006-01-02 15:04"), text.Cut(last.Message, 300))
	c.Hint = "the hooks failed open (the agent was not affected); see the log for details"
	return c
}

// checkClient reports the Claude Code version the hooks last saw, and the
// one on PATH.
func (a *app) checkClient(ctx context.Context) check {
	c := check{Name: "client", Status: statusOK}
	var parts []string
	if st, err := a.openStore(ctx); err == nil {
		a.root.Ingest(ctx, st, "")
		if v, when, err := st.LastClientVersion(ctx); err == nil && v != "" {
			parts = append(parts, fmt.Sprintf("Claude Code %s seen by the hooks at %s", v, when.Local().Format("2006-01-02 15:04")))
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
	if len(parts) == 0 {
		c.Status, c.Detail = statusWarn, "no Claude Code seen yet: no hook has run and `claude` is not on PATH"
		c.Hint = "start claude in a project; the next doctor run shows the version its hooks report"
		return c
	}
	c.Detail = strings.Join(parts, "; ")
	return c
}

// checkReplacements reports the replacements the client did not take, as
// the transcripts show them (internal/proof): the tool, the shape sent and
// why, for the latest.
func (a *app) checkReplacements(ctx context.Context) check {
	c := check{Name: "applied", Status: statusOK}
	st, err := a.openStore(ctx)
	if err != nil {
		c.Detail = "no store to check"
		return c
	}
	swaps, err := st.Swaps(ctx, "")
	if err != nil {
		return fail(c, err.Error(), "")
	}
	var p ctxkeep.Proof
	for _, s := range swaps {
		p.Applied, p.NotApplied, p.Unchecked = p.Applied+s.Applied, p.NotApplied+s.NotApplied, p.Unchecked+s.Unchecked
	}
	c.Detail = fmt.Sprintf("replacements taken by the client: %d applied, %d not applied, %d not checked yet", p.Applied, p.NotApplied, p.Unchecked)
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

func fail(c check, detail, hint string) check {
	c.Status, c.Detail, c.Hint = statusFail, detail, hint
	return c
}

// problemsOf says what is wrong with the store, briefly.
func problemsOf(r store.Report) string {
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
