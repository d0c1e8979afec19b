package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/project"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// What the commands do for OpenAI's Codex CLI, beside Claude Code: install
// and uninstall (--agent codex), doctor's check that Codex will run the
// hooks, archive of its rollouts, context of its sessions.

// agentFlagDoc is the help of install's --agent.
const agentFlagDoc = "set up one client, `AGENT`: claude-code, codex or gemini (default: every one found on this machine)"

func (a *app) codexHome() string { return codex.Home(a.Getenv) }

// installTargets decides which clients install sets up. With --agent, that
// one; else every client found here (its folder, or its program on PATH),
// Claude Code alone when none is found. Flags only Claude Code has
// (claudeOnly: --project, --local, --plugin) keep Codex and Gemini CLI out.
func (a *app) installTargets(agent string, claudeOnly bool) (claude, withCodex, withGemini bool, err error) {
	switch agent {
	case ctxkeep.AgentClaudeCode:
		return true, false, false, nil
	case ctxkeep.AgentCodex:
		if claudeOnly {
			return false, false, false, usageErrorf("--project, --local and --plugin are Claude Code's; Codex's hooks go in %s", codex.HooksFile(a.codexHome()))
		}
		return false, true, false, nil
	case ctxkeep.AgentGemini:
		if claudeOnly {
			return false, false, false, usageErrorf("--project, --local and --plugin are Claude Code's; Gemini CLI's hooks go in %s", gemini.SettingsFile(a.geminiHome()))
		}
		return false, false, true, nil
	case "":
	default:
		return false, false, false, usageErrorf("unknown agent %q: want claude-code, codex or gemini", agent)
	}
	if claudeOnly {
		return true, false, false, nil
	}
	claudeDir := a.Getenv("CLAUDE_CONFIG_DIR")
	if claudeDir == "" {
		claudeDir = filepath.Join(a.Getenv("HOME"), ".claude")
	}
	claude = isDir(claudeDir) || a.onPath("claude")
	withCodex = isDir(a.codexHome()) || a.onPath("codex")
	withGemini = a.geminiFound()
	switch {
	case withGemini:
		a.foundWithGemini(claude, withCodex)
	case claude && withCodex:
		fmt.Fprintln(a.Stdout, "found Claude Code and Codex: setting up both")
	case withCodex:
		fmt.Fprintln(a.Stdout, "found Codex (no Claude Code): setting up Codex; `ctxkeep install --agent claude-code` sets up Claude Code")
	}
	return claude || !withCodex && !withGemini, withCodex, withGemini, nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return path != "" && err == nil && st.IsDir()
}

// onPath reports whether an executable named name is on the run's PATH.
func (a *app) onPath(name string) bool {
	for _, dir := range filepath.SplitList(a.Getenv("PATH")) {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// registrationAs is the Claude Code registration's command and timeouts
// handed to another client's registration (codex.Registration,
// gemini.Registration), which tells the hook who calls.
func (a *app) registrationAs(client func(hookCommand string, timeout func(event string) int) claudecode.Registration) (claudecode.Registration, error) {
	reg, err := a.registration()
	if err != nil {
		return reg, err
	}
	timeouts := map[string]int{}
	for _, h := range reg.Hooks {
		timeouts[h.Event] = h.Timeout
	}
	return client(reg.Command, func(event string) int { return timeouts[event] }), nil
}

// installCodex registers the hooks in $CODEX_HOME/hooks.json and trusts
// them in config.toml; prepare also readies the store (when Claude Code's
// install, which does it, does not follow).
func (a *app) installCodex(ctx context.Context, dryRun, prepare bool) error {
	reg, err := a.registrationAs(codex.Registration)
	if err != nil {
		return err
	}
	home := a.codexHome()
	if home == "" {
		return hint(errors.New("no Codex folder: neither CODEX_HOME nor HOME is set"), "set CODEX_HOME")
	}
	res, err := codex.Install(home, reg, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	if err != nil {
		return codexHint(err, home)
	}
	if dryRun {
		if err := a.printDryRun(res.Hooks, "install"); err != nil {
			return err
		}
		return a.printDryRun(res.Config, "install")
	}
	if res.Hooks.Changed {
		fmt.Fprintf(a.Stdout, "installed ctxkeep's hooks for %d events in %s (Codex)\n", len(reg.Hooks), res.Hooks.Path)
		if res.Hooks.Backup != "" {
			fmt.Fprintf(a.Stdout, "backup of the previous hooks: %s\n", res.Hooks.Backup)
		}
	} else {
		fmt.Fprintf(a.Stdout, "already installed in %s (Codex)\n", res.Hooks.Path)
	}
	if res.Config.Changed {
		fmt.Fprintf(a.Stdout, "trusted them in %s, as Codex's own review does (Codex skips untrusted hooks without a word)\n", res.Config.Path)
		if res.Config.Backup != "" {
			fmt.Fprintf(a.Stdout, "backup of the previous config: %s\n", res.Config.Backup)
		}
	}
	if prepare {
		if err := a.prepareStore(ctx); err != nil {
			return err
		}
		fmt.Fprintln(a.Stdout, "next: run `ctxkeep doctor` to check everything, then start codex as usual")
	}
	return nil
}

// uninstallCodex takes ctxkeep's hooks and their trust out of Codex's
// files; the user's hooks, and their trust, stay.
func (a *app) uninstallCodex(dryRun bool) error {
	home := a.codexHome()
	if _, err := os.Stat(codex.HooksFile(home)); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s (no such file)\n", codex.HooksFile(home))
		return nil
	}
	res, err := codex.Uninstall(home, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	if err != nil {
		return codexHint(err, home)
	}
	if dryRun {
		if err := a.printDryRun(res.Hooks, "uninstall"); err != nil {
			return err
		}
		return a.printDryRun(res.Config, "uninstall")
	}
	if !res.Hooks.Changed {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s\n", res.Hooks.Path)
	} else {
		fmt.Fprintf(a.Stdout, "removed ctxkeep's hooks from %s (backup: %s)\n", res.Hooks.Path, res.Hooks.Backup)
	}
	if res.Config.Changed {
		fmt.Fprintf(a.Stdout, "removed their trust from %s", res.Config.Path)
		if len(res.Moved) > 0 {
			fmt.Fprintf(a.Stdout, "; %d of your hooks moved up, their trust with them", len(res.Moved))
		}
		fmt.Fprintf(a.Stdout, " (backup: %s)\n", res.Config.Backup)
	}
	return nil
}

// codexInstalled reports whether ctxkeep's hooks are in Codex's hooks.json.
func (a *app) codexInstalled() bool {
	st, err := codex.Check(a.codexHome())
	return err == nil && len(st.Handlers) > 0
}

func codexHint(err error, home string) error {
	switch {
	case errors.Is(err, codex.ErrConfig):
		return hint(err, "fix %s by hand (it was left untouched), then run the command again", codex.ConfigFile(home))
	case errors.Is(err, claudecode.ErrMalformed):
		return hint(err, "fix %s by hand (it was left untouched), then run the command again", codex.HooksFile(home))
	}
	return err
}

// checkCodex says whether Codex will run ctxkeep's hooks: registered for
// every event, each trusted with the hash of what it runs now (an edit of
// the command, timeout or matcher, or another binary path, untrusts it),
// hooks not turned off. It is skipped where Codex is not.
func (a *app) checkCodex(context.Context) check {
	c := check{Name: "codex"}
	home := a.codexHome()
	if !isDir(home) {
		c.Status, c.Detail = statusOK, "no Codex folder ("+home+"): nothing to check"
		return c
	}
	st, err := codex.Check(home)
	if err != nil {
		return fail(c, err.Error(), fmt.Sprintf("fix %s or %s by hand", codex.HooksFile(home), codex.ConfigFile(home)))
	}
	if len(st.Handlers) == 0 {
		c.Status, c.Detail = statusWarn, "Codex is here, but ctxkeep's hooks are not in "+st.HooksFile
		c.Hint = "run `ctxkeep install --agent codex`"
		return c
	}
	var problems []string
	if len(st.Events) > 0 {
		problems = append(problems, "no hook for "+strings.Join(st.Events, ", "))
	}
	if n := len(st.Untrusted); n > 0 {
		var which []string
		for _, h := range st.Untrusted {
			which = append(which, h.Event)
		}
		problems = append(problems, fmt.Sprintf("%d of ctxkeep's hooks are not trusted (%s): Codex skips them without a word", n, strings.Join(which, ", ")))
	}
	if st.HooksOff {
		problems = append(problems, "[features] hooks = false in "+codex.ConfigFile(home)+": Codex runs no hook")
	}
	exe, _ := a.Executable()
	var details, warnings []string
	programs := map[string]bool{}
	for _, h := range st.Handlers {
		prog := claudecode.CommandProgram(h.Command)
		if info, err := os.Stat(prog); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			problems = append(problems, fmt.Sprintf("%s runs %s, which is not an executable file", h.Event, prog))
			break
		} else if !programs[prog] {
			programs[prog] = true
			details, warnings = hookProgram(exe, st.HooksFile, prog, details, warnings)
		}
	}
	problems = append(problems, warnings...)
	for _, d := range details {
		c.Detail += d + "; "
	}
	if len(problems) > 0 {
		return fail(c, strings.Join(problems, "; "), "run `ctxkeep install --agent codex`")
	}
	c.Status = statusOK
	c.Detail += fmt.Sprintf("%d/%d events in %s, all trusted", len(codex.Events), len(codex.Events), st.HooksFile)
	return c
}

// codexTranscripts lists the rollouts under $CODEX_HOME/sessions, for
// `archive --all`.
func (a *app) codexTranscripts() ([]string, error) {
	return codex.Rollouts(a.codexHome())
}

// archiveCodex archives one Codex rollout: its session and its project
// (the git root of the folder it worked in, as the hooks name it) are in
// its first line.
func archiveCodex(ctx context.Context, st ctxkeep.Local, abs string) (archived, bool) {
	meta, err := codex.ReadMeta(abs)
	if err != nil {
		return archived{}, false
	}
	r := archived{Transcript: abs, Session: meta.ID, Project: project.Root("", meta.Cwd), Agent: ctxkeep.AgentCodex}
	res, err := keep.ArchiveAll(ctx, st, keep.Session{ID: r.Session, Project: r.Project, Transcript: abs, Agent: ctxkeep.AgentCodex, Read: keep.ReadTurns(codex.Reader{})}, nil)
	if err != nil {
		r.Error = err.Error()
		return r, true
	}
	r.Turns, r.Written, r.Problems = res.Turns, res.Written, res.Problems
	return r, true
}

// codexContext is `ctxkeep context` for a Codex session: the usage part of
// the report (how full, the thresholds, compactions, swaps, a timeline of
// the responses). The breakdown by category reads Claude Code's
// transcripts only.
// keptOutOf is what swap kept out of a session as its transcript shows
// it: the replacements the client applied, the others counted apart.
func (a *app) keptOutOf(ctx context.Context, session, path string) breakdown.SwappedTotal {
	var k breakdown.SwappedTotal
	for _, s := range a.sessionSwaps(ctx, session, path) {
		switch {
		case s.KeptOut():
			k.Entries++
			k.Tokens += s.Tokens
		case s.Status == breakdown.NotApplied:
			k.NotApplied++
		default:
			k.Unchecked++
			k.UncheckedTokens += s.Tokens
		}
	}
	return k
}

// keptLine says what swap kept out as the transcript (a rollout, a chat)
// shows it, the replacements not checked or not applied named apart.
func keptLine(k breakdown.SwappedTotal, transcript string) string {
	line := fmt.Sprintf("  swapped out %d output(s), ~%s tokens kept out of the context, as the %s shows", k.Entries, watch.Thousands(k.Tokens), transcript)
	if k.Unchecked > 0 {
		line += fmt.Sprintf("; %d more replaced, not checked yet", k.Unchecked)
	}
	if k.NotApplied > 0 {
		line += fmt.Sprintf("; %d replacement(s) not applied", k.NotApplied)
	}
	return line
}

func (a *app) codexContext(ctx context.Context, path string, asJSON bool, c chosen) error {
	r, err := codex.ReadReport(path)
	if err != nil {
		return err
	}
	limits := watch.Fixed(codex.Thresholds(r.Usage.Window, codex.AutoCompactLimit(a.codexHome())))
	k := a.keptOutOf(ctx, r.ID, path) // as the rollout shows it
	if asJSON {
		doc := map[string]any{"agent": ctxkeep.AgentCodex, "session_id": r.ID, "transcript": path, "report": r,
			"limits": limits, "percent_of_threshold": limits.OfThreshold(r.Usage.Tokens), "swapped_out": k.Entries, "swapped_out_tokens": k.Tokens, "kept": k}
		if o := a.otherProject(c); o.Project != "" {
			doc["other_project"], doc["note"] = o.Project, o.Note
		}
		return a.printJSON(doc)
	}
	a.sayElsewhere(c)
	w := a.Stdout
	fmt.Fprintf(w, "session %s (Codex %s, %s)\n", r.ID, r.CLIVersion, r.Model)
	fmt.Fprintf(w, "  transcript  %s\n", path)
	switch {
	case !r.Usage.Known():
		fmt.Fprintln(w, "  context     no response recorded yet")
	case r.Usage.Compacted:
		fmt.Fprintf(w, "  context     ~%s tokens left after the last compaction (the client's estimate; no response since)\n", watch.Thousands(r.Usage.Tokens))
	default:
		fmt.Fprintf(w, "  context     %s tokens of a %s window (%.0f%%); %.0f%% of the way to auto-compaction at %s\n",
			watch.Thousands(r.Usage.Tokens), watch.Thousands(limits.Window), limits.OfWindow(r.Usage.Tokens),
			limits.OfThreshold(r.Usage.Tokens), watch.Thousands(limits.AutoCompact))
	}
	fmt.Fprintf(w, "  responses   %d, peak %s tokens\n", r.Responses, watch.Thousands(r.Peak))
	fmt.Fprintf(w, "  compactions %d\n", len(r.Compactions))
	for _, c := range r.Compactions {
		fmt.Fprintf(w, "    %s  at %s tokens\n", c.Time.Local().Format("2006-01-02 15:04:05"), watch.Thousands(c.Before))
	}
	fmt.Fprintln(w, keptLine(k, "rollout"))
	fmt.Fprintln(w, "(the breakdown by category and the stale output are for Claude Code sessions only)")
	return nil
}

// latestRollout is this project's latest Codex rollout, or with
// anyProject and none of this project, the latest of any project (marked
// as another project's); ok is false when there is none. A person at a
// terminal is told which. Only the newest maxLookedAt rollouts are looked
// at (each one's first line is read for its folder).
func (a *app) latestRollout(anyProject bool) (chosen, bool) {
	const maxLookedAt = 200
	paths, _ := codex.Rollouts(a.codexHome())
	var newest chosen
	for i := len(paths) - 1; i >= 0 && i >= len(paths)-maxLookedAt; i-- {
		meta, err := codex.ReadMeta(paths[i])
		if err != nil {
			continue
		}
		root := project.Root("", meta.Cwd)
		if newest.Path == "" {
			newest = chosen{Path: paths[i], Elsewhere: orDash(root)}
		}
		if root == a.projectDir() {
			a.note("no Claude Code session of this project; its latest Codex session: %s (%s)", meta.ID, paths[i])
			return chosen{Path: paths[i]}, true
		}
	}
	return newest, anyProject && newest.Path != ""
}

// latestSession is the session context and replay are about when none is
// named: the Claude Code session the command runs in, else this project's
// latest Claude Code session, else its latest Codex session, else its
// latest Gemini CLI chat; else, when
// this project has none, the latest of any project (Claude Code's first),
// marked as another project's. errNoSession when there is none at all.
func (a *app) latestSession() (chosen, error) {
	c, err := a.latestTranscript(false)
	if !errors.Is(err, errNoSession) {
		return c, err
	}
	if c, ok := a.latestRollout(false); ok {
		return c, nil
	}
	if c, ok := a.latestChat(false); ok {
		return c, nil
	}
	if c, err := a.latestTranscript(true); !errors.Is(err, errNoSession) {
		return c, err
	}
	if c, ok := a.latestRollout(true); ok {
		return c, nil
	}
	if c, ok := a.latestChat(true); ok {
		return c, nil
	}
	return chosen{}, noSession("no Claude Code, Codex or Gemini CLI session: none under %s, %s or %s",
		a.projectsDir(), codex.SessionsDir(a.codexHome()), a.geminiHome())
}

// findCodex resolves `context SESSION` to a Codex rollout: a rollout path,
// or a session id (or unique prefix) under $CODEX_HOME/sessions. ok is
// false when SESSION is not a Codex session.
func (a *app) findCodex(arg string) (string, bool) {
	switch {
	case arg == "":
		return "", false
	case strings.HasSuffix(arg, ".jsonl") || strings.ContainsRune(arg, filepath.Separator):
		return arg, codex.IsRollout(arg)
	}
	path, err := codex.Find(a.codexHome(), arg)
	return path, err == nil
}

// agentName is how people know a client.
func agentName(agent string) string {
	switch agent {
	case ctxkeep.AgentCodex:
		return "Codex"
	case ctxkeep.AgentGemini:
		return "Gemini CLI"
	}
	return "Claude Code"
}
