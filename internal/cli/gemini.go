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
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/project"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// What the commands do for Google's Gemini CLI, beside Claude Code and
// Codex: install and uninstall (--agent gemini), doctor's check that the
// CLI will run the hooks, archive of its chats, context of its sessions.

func (a *app) geminiHome() string { return gemini.Home(a.Getenv) }

// geminiFound reports whether Gemini CLI is on this machine: its folder,
// or its program on PATH.
func (a *app) geminiFound() bool {
	return isDir(a.geminiHome()) || a.onPath("gemini")
}

// installGemini registers the hooks in ~/.gemini/settings.json; prepare
// also readies the store (when no other client's install, which does it,
// follows).
func (a *app) installGemini(ctx context.Context, dryRun, prepare bool) error {
	reg, err := a.registrationAs(gemini.Registration)
	if err != nil {
		return err
	}
	home := a.geminiHome()
	if home == "" {
		return hint(errors.New("no Gemini CLI folder: neither GEMINI_CLI_HOME nor HOME is set"), "set HOME")
	}
	res, err := gemini.Install(home, reg, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	if err != nil {
		return geminiHint(err, home)
	}
	if dryRun {
		return a.printDryRun(res, "install")
	}
	if res.Changed {
		fmt.Fprintf(a.Stdout, "installed ctxkeep's hooks for %d events in %s (Gemini CLI)\n", len(reg.Hooks), res.Path)
		if res.Backup != "" {
			fmt.Fprintf(a.Stdout, "backup of the previous settings: %s\n", res.Backup)
		}
	} else {
		fmt.Fprintf(a.Stdout, "already installed in %s (Gemini CLI)\n", res.Path)
	}
	if prepare {
		if err := a.prepareStore(ctx); err != nil {
			return err
		}
		fmt.Fprintln(a.Stdout, "next: run `ctxkeep doctor` to check everything, then start gemini as usual")
	}
	return nil
}

// uninstallGemini takes ctxkeep's hooks out of Gemini CLI's settings; the
// user's settings and hooks stay (the file as it was before install, byte
// for byte, when nothing else changed since).
func (a *app) uninstallGemini(dryRun bool) error {
	home := a.geminiHome()
	path := gemini.SettingsFile(home)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s (no such file)\n", path)
		return nil
	}
	res, err := gemini.Uninstall(home, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	if err != nil {
		return geminiHint(err, home)
	}
	if dryRun {
		return a.printDryRun(res, "uninstall")
	}
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s\n", res.Path)
		return nil
	}
	fmt.Fprintf(a.Stdout, "removed ctxkeep's hooks from %s (backup: %s)\n", res.Path, res.Backup)
	return nil
}

// geminiInstalled reports whether ctxkeep's hooks are in Gemini CLI's
// settings.
func (a *app) geminiInstalled() bool {
	st, err := gemini.Check(a.geminiHome())
	return err == nil && len(st.Handlers) > 0
}

func geminiHint(err error, home string) error {
	if errors.Is(err, claudecode.ErrMalformed) {
		return hint(err, "fix %s by hand (it was left untouched; comments, which Gemini CLI allows, are not kept by ctxkeep's edit: remove them), then run the command again", gemini.SettingsFile(home))
	}
	return err
}

// checkGemini says whether Gemini CLI will run ctxkeep's hooks: registered
// for every event, each running an executable, hooks not turned off. It
// is skipped where Gemini CLI is not.
func (a *app) checkGemini(context.Context) check {
	c := check{Name: "gemini"}
	home := a.geminiHome()
	if !isDir(home) {
		c.Status, c.Detail = statusOK, "no Gemini CLI folder ("+home+"): nothing to check"
		return c
	}
	st, err := gemini.Check(home)
	if err != nil {
		return fail(c, err.Error(), "fix "+gemini.SettingsFile(home)+" by hand")
	}
	if len(st.Handlers) == 0 {
		c.Status, c.Detail = statusWarn, "Gemini CLI is here, but ctxkeep's hooks are not in "+st.SettingsFile
		c.Hint = "run `ctxkeep install --agent gemini`"
		return c
	}
	var problems []string
	if len(st.Missing) > 0 {
		problems = append(problems, "no hook for "+strings.Join(st.Missing, ", "))
	}
	if st.HooksOff {
		problems = append(problems, "hooksConfig.enabled is false in "+st.SettingsFile+": Gemini CLI runs no hook")
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
			details, warnings = hookProgram(exe, st.SettingsFile, prog, details, warnings)
		}
	}
	problems = append(problems, warnings...)
	for _, d := range details {
		c.Detail += d + "; "
	}
	if len(problems) > 0 {
		return fail(c, strings.Join(problems, "; "), "run `ctxkeep install --agent gemini`")
	}
	c.Status = statusOK
	c.Detail += fmt.Sprintf("%d/%d events in %s", len(gemini.Events), len(gemini.Events), st.SettingsFile)
	return c
}

// geminiTranscripts lists the chats under ~/.gemini/tmp, for `archive --all`.
func (a *app) geminiTranscripts() ([]string, error) { return gemini.Chats(a.geminiHome()) }

// archiveGemini archives one Gemini CLI chat: its session is in its first
// line, its project the git root of the workspace its session context
// names.
func archiveGemini(ctx context.Context, st ctxkeep.Local, abs string) (archived, bool) {
	meta, err := gemini.ReadMeta(abs)
	if err != nil {
		return archived{}, false
	}
	r := archived{Transcript: abs, Session: meta.ID, Agent: ctxkeep.AgentGemini}
	if meta.Workspace != "" {
		r.Project = project.Root("", meta.Workspace)
	}
	res, err := keep.ArchiveAll(ctx, st, keep.Session{ID: r.Session, Project: r.Project, Transcript: abs, Agent: ctxkeep.AgentGemini, Read: keep.ReadTurns(gemini.Reader{})}, nil)
	if err != nil {
		r.Error = err.Error()
		return r, true
	}
	r.Turns, r.Written, r.Problems = res.Turns, res.Written, res.Problems
	return r, true
}

// findGemini resolves `context SESSION` to a Gemini CLI chat: a chat's
// path, or a session id (or unique prefix) under ~/.gemini/tmp. ok is
// false when SESSION is not a Gemini session.
func (a *app) findGemini(arg string) (string, bool) {
	switch {
	case arg == "":
		return "", false
	case strings.HasSuffix(arg, ".jsonl") || strings.ContainsRune(arg, filepath.Separator):
		return arg, gemini.IsChat(arg)
	}
	path, err := gemini.Find(a.geminiHome(), arg)
	return path, err == nil
}

// geminiContext is `ctxkeep context` for a Gemini CLI session: the usage
// part of the report (how full, the model's limit and the compression
// point, compressions, swaps, the responses). The breakdown by category
// reads Claude Code's transcripts only.
func (a *app) geminiContext(ctx context.Context, path string, asJSON bool, c chosen) error {
	r, err := gemini.ReadReport(path)
	if err != nil {
		return err
	}
	limits := watch.Fixed(gemini.Thresholds(r.Model, gemini.CompressionThreshold(a.Getenv, r.Workspace)))
	k := a.keptOutOf(ctx, r.ID, path) // as the chat shows it
	if asJSON {
		doc := map[string]any{"agent": ctxkeep.AgentGemini, "session_id": r.ID, "transcript": path, "report": r,
			"limits": limits, "percent_of_threshold": limits.OfThreshold(r.Usage.Tokens), "swapped_out": k.Entries, "swapped_out_tokens": k.Tokens, "kept": k}
		if o := a.otherProject(c); o.Project != "" {
			doc["other_project"], doc["note"] = o.Project, o.Note
		}
		return a.printJSON(doc)
	}
	a.sayElsewhere(c)
	w := a.Stdout
	fmt.Fprintf(w, "session %s (Gemini CLI, %s)\n", r.ID, r.Model)
	fmt.Fprintf(w, "  transcript  %s\n", path)
	switch {
	case !r.Usage.Known():
		fmt.Fprintln(w, "  context     no response recorded yet")
	case r.Usage.Compacted:
		fmt.Fprintln(w, "  context     compressed; no response since")
	default:
		fmt.Fprintf(w, "  context     %s tokens of a %s limit (%.0f%%); %.0f%% of the way to compression at %s\n",
			watch.Thousands(r.Usage.Tokens), watch.Thousands(limits.Window), limits.OfWindow(r.Usage.Tokens),
			limits.OfThreshold(r.Usage.Tokens), watch.Thousands(limits.AutoCompact))
	}
	fmt.Fprintf(w, "  responses   %d, peak %s tokens\n", r.Responses, watch.Thousands(r.Peak))
	fmt.Fprintf(w, "  compressions %d\n", len(r.Compactions))
	for _, c := range r.Compactions {
		fmt.Fprintf(w, "    at %s tokens\n", watch.Thousands(c.Before))
	}
	fmt.Fprintln(w, keptLine(k, "chat"))
	fmt.Fprintln(w, "(the breakdown by category and the stale output are for Claude Code sessions only)")
	return nil
}

// latestChat is the latest Gemini CLI chat of this project, else (with
// anyProject) the latest of any project, marked as another project's.
func (a *app) latestChat(anyProject bool) (chosen, bool) {
	const maxLookedAt = 200
	paths, _ := gemini.Chats(a.geminiHome())
	var newest chosen
	for i := len(paths) - 1; i >= 0 && i >= len(paths)-maxLookedAt; i-- {
		meta, err := gemini.ReadMeta(paths[i])
		if err != nil {
			continue
		}
		root := ""
		if meta.Workspace != "" {
			root = project.Root("", meta.Workspace)
		}
		if newest.Path == "" {
			newest = chosen{Path: paths[i], Elsewhere: orDash(root)}
		}
		if root != "" && root == a.projectDir() {
			a.note("no Claude Code or Codex session of this project; its latest Gemini CLI session: %s (%s)", meta.ID, paths[i])
			return chosen{Path: paths[i]}, true
		}
	}
	return newest, anyProject && newest.Path != ""
}

// foundWithGemini says which clients plain install found, Gemini CLI
// among them.
func (a *app) foundWithGemini(claude, withCodex bool) {
	switch {
	case claude && withCodex:
		fmt.Fprintln(a.Stdout, "found Claude Code, Codex and Gemini CLI: setting up all three")
	case claude:
		fmt.Fprintln(a.Stdout, "found Claude Code and Gemini CLI: setting up both")
	case withCodex:
		fmt.Fprintln(a.Stdout, "found Codex and Gemini CLI (no Claude Code): setting up both; `ctxkeep install --agent claude-code` sets up Claude Code")
	default:
		fmt.Fprintln(a.Stdout, "found Gemini CLI (no Claude Code): setting up Gemini CLI; `ctxkeep install --agent claude-code` sets up Claude Code")
	}
}
