package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/keep"
)

// scopeFlags are --user, --project and --local.
type scopeFlags struct{ user, project, local bool }

func (s *scopeFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.user, "user", false, "your settings, for every project: ~/.claude/settings.json (default)")
	fs.BoolVar(&s.project, "project", false, "this project's shared settings: .claude/settings.json")
	fs.BoolVar(&s.local, "local", false, "this project, only you: .claude/settings.local.json")
}

func (s scopeFlags) scope() (claudecode.Scope, error) {
	n := 0
	scope := claudecode.User
	for _, f := range []struct {
		set bool
		s   claudecode.Scope
	}{{s.user, claudecode.User}, {s.project, claudecode.Project}, {s.local, claudecode.Local}} {
		if f.set {
			n++
			scope = f.s
		}
	}
	if n > 1 {
		return 0, usageErrorf("choose one of --user, --project and --local")
	}
	return scope, nil
}

func (a *app) settingsPath(scope claudecode.Scope) string {
	return claudecode.SettingsPath(scope, a.Getenv("HOME"), a.projectDir(), a.Getenv("CLAUDE_CONFIG_DIR"))
}

type installOptions struct {
	agent  string
	scopes scopeFlags
	dryRun bool
	plugin string
	status statusOptions // --statusline, --force
}

func runInstall(ctx context.Context, a *app, args []string) error {
	var o installOptions
	fs := a.flags("install")
	o.scopes.register(fs)
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the change to the settings file, change nothing")
	fs.StringVar(&o.plugin, "plugin", "", "write a Claude Code plugin folder to `DIR` instead of editing settings")
	o.status.register(fs)
	fs.StringVar(&o.agent, "agent", "", agentFlagDoc)
	if err := noArgs(fs, args); err != nil {
		return err
	}
	claude, withCodex, err := a.installTargets(o.agent, o.scopes != (scopeFlags{}) || o.plugin != "")
	if err != nil {
		return err
	}
	if withCodex {
		if err := a.installCodex(ctx, o.dryRun, !claude); err != nil || !claude {
			return err
		}
	}
	scope, err := o.scopes.scope()
	if err != nil {
		return err
	}
	reg, err := a.registration()
	if err != nil {
		return err
	}
	o.status.prepare(reg)
	if o.plugin != "" {
		return a.installPlugin(ctx, o.plugin, reg)
	}
	path := a.settingsPath(scope)
	res, err := claudecode.ApplyFile(path, func(b []byte) ([]byte, bool, error) {
		return o.status.edit(claudecode.AddHooks(b, reg))
	}, claudecode.ApplyOptions{DryRun: o.dryRun, Now: a.Now()})
	if err != nil {
		return statusLineHint(malformedHint(err, path), path)
	}
	if o.dryRun {
		return a.printDryRun(res, "install")
	}
	if res.Changed {
		fmt.Fprintf(a.Stdout, "installed ctxkeep's hooks for %d events in %s (%s settings)\n", len(reg.Hooks), path, scope)
		if res.Backup != "" {
			fmt.Fprintf(a.Stdout, "backup of the previous settings: %s\n", res.Backup)
		}
	} else {
		fmt.Fprintf(a.Stdout, "already installed in %s (%s settings)\n", path, scope)
	}
	o.status.report(a, path)
	if err := a.installPinCommands(a.commandsDir(scope)); err != nil {
		return err
	}
	if err := a.prepareStore(ctx); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, "next: run `ctxkeep doctor` to check everything, then start claude as usual")
	return nil
}

func (a *app) installPlugin(ctx context.Context, dir string, reg claudecode.Registration) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	files, err := claudecode.WritePlugin(dir, reg, version())
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(a.Stdout, "wrote %s\n", f)
	}
	if err := a.installPinCommands(filepath.Join(dir, "commands")); err != nil {
		return err
	}
	if err := a.prepareStore(ctx); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "next: start the client with `claude --plugin-dir %s`\n", claudecode.ShellQuote(dir))
	return nil
}

// prepareStore creates the private folders and migrates the index, so the
// hooks never have to.
func (a *app) prepareStore(ctx context.Context) error {
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "store ready: %s\n", st.Dir())
	return a.writeInstructions()
}

// writeInstructions gives the user a compaction instructions file to edit,
// holding ctxkeep's default; an existing file is never touched.
func (a *app) writeInstructions() error {
	d, err := a.dirs()
	if err != nil {
		return err
	}
	path := filepath.Join(d.Config, keep.InstructionsFileName)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := fsx.MkdirPrivate(d.Config); err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(path, []byte(keep.DefaultInstructions), fsx.FilePerm); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "your compaction instructions: %s (edit it; ctxkeep hands it to the summariser)\n", path)
	return nil
}

func (a *app) printDryRun(res claudecode.ApplyResult, verb string) error {
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "nothing to %s: %s is already as it should be\n", verb, res.Path)
		return nil
	}
	fmt.Fprint(a.Stdout, res.Diff)
	fmt.Fprintf(a.Stdout, "(dry run: %s was not changed)\n", res.Path)
	return nil
}

func malformedHint(err error, path string) error {
	if errors.Is(err, claudecode.ErrMalformed) {
		return hint(err, "fix %s by hand (it was left untouched), then run the command again", path)
	}
	return err
}

// registration is what ctxkeep asks the client to run: this binary's
// absolute path with "hook", for every event ctxkeep handles.
func (a *app) registration() (claudecode.Registration, error) {
	exe, err := a.Executable()
	if err != nil {
		return claudecode.Registration{}, fmt.Errorf("cannot find ctxkeep's own path: %w", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return claudecode.Registration{}, hint(fmt.Errorf("ctxkeep is running from a temporary build (%s)", exe),
			"build it first (`go install ./cmd/ctxkeep` or `make install`) and run the installed binary")
	}
	cfg, _, err := a.config()
	if err != nil {
		return claudecode.Registration{}, err
	}
	reg := claudecode.Registration{Command: claudecode.ShellQuote(exe) + " hook"}
	for _, ev := range config.HookEvents {
		reg.Hooks = append(reg.Hooks, claudecode.HookSpec{Event: ev, Timeout: clientTimeout(cfg.DeadlineFor(ev))})
	}
	return reg, nil
}

// clientTimeout gives the client's timeout a margin over ctxkeep's own
// deadline, so ctxkeep always gives up and fails open before the client
// would cancel it. It is explicit for every event: without one, SessionEnd
// hooks get almost no time (claude-code-hooks.md §1.2).
func clientTimeout(d time.Duration) int {
	return int(math.Ceil(d.Seconds())) + 5
}

func runUninstall(ctx context.Context, a *app, args []string) error {
	var scopes scopeFlags
	var dryRun bool
	var agent string
	fs := a.flags("uninstall")
	scopes.register(fs)
	fs.BoolVar(&dryRun, "dry-run", false, "print the change to the settings file, change nothing")
	fs.StringVar(&agent, "agent", "", "the client: claude-code or codex (default: Claude Code, and Codex where ctxkeep is registered)")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	switch {
	case agent == ctxkeep.AgentCodex:
		return a.uninstallCodex(dryRun)
	case agent == "" && scopes == (scopeFlags{}) && a.codexInstalled():
		if err := a.uninstallCodex(dryRun); err != nil {
			return err
		}
	case agent != "" && agent != ctxkeep.AgentClaudeCode:
		return usageErrorf("unknown agent %q: want claude-code or codex", agent)
	}
	scope, err := scopes.scope()
	if err != nil {
		return err
	}
	path := a.settingsPath(scope)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s (no such file)\n", path)
		return nil
	}
	res, err := claudecode.ApplyFile(path, removeAll, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	if err != nil {
		return malformedHint(err, path)
	}
	if dryRun {
		return a.printDryRun(res, "uninstall")
	}
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s\n", path)
	} else {
		fmt.Fprintf(a.Stdout, "removed ctxkeep's hooks from %s (backup: %s)\n", path, res.Backup)
	}
	if err := a.removePinCommands(scope, false); err != nil {
		return err
	}
	for _, other := range a.installedScopes() {
		if other.scope != scope {
			fmt.Fprintf(a.Stdout, "note: ctxkeep is still registered in %s (%s settings): `ctxkeep uninstall --%s`\n", other.path, other.scope, other.scope)
		}
	}
	if d, err := a.dirs(); err == nil {
		fmt.Fprintf(a.Stdout, "your stored data stays in %s and %s; delete those folders to remove it\n", d.Data, d.State)
	}
	return nil
}

// installation is ctxkeep's registration found in one settings file.
type installation struct {
	scope claudecode.Scope
	path  string
	hooks []claudecode.Found
	err   error
}

// installedScopes reads the three settings files and returns those that
// register ctxkeep (or cannot be read).
func (a *app) installedScopes() []installation {
	var out []installation
	for _, scope := range []claudecode.Scope{claudecode.User, claudecode.Project, claudecode.Local} {
		path := a.settingsPath(scope)
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		in := installation{scope: scope, path: path, err: err}
		if err == nil {
			in.hooks, in.err = claudecode.FindHooks(data)
		}
		if in.err != nil || len(in.hooks) > 0 {
			out = append(out, in)
		}
	}
	return out
}
