package cli

import (
	"bytes"
	"context"
	"encoding/json"
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

func (s scopeFlags) any() bool { return s.user || s.project || s.local }

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

var installCmd = &command{
	name:    "install",
	usage:   "install [--agent claude-code|codex|gemini] [--user | --project | --local] [--dry-run] [--plugin DIR] [--statusline [--force]]",
	summary: "register ctxkeep's hooks and MCP server with Claude Code (and its hooks with Codex and Gemini CLI) and prepare the store",
	group:   groupSetup,
	long: `Registers "<absolute path of this binary> hook" for every event ctxkeep handles (SessionStart,
UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PreCompact, PostCompact, Stop,
SubagentStop, SessionEnd), each with a timeout of its deadline plus 5 s, so that ctxkeep always gives up and
fails open before the client would kill it. Every other key of the settings file, and your own
hooks, even in the same event, are kept; the previous file is saved beside it as
settings.json.ctxkeep-backup-<UTC time> (the oldest and the newest two are kept) before an atomic replace. A
malformed file is refused, untouched, with the line and column. A second run says "already
installed"; a newer binary updates its handlers in place.

For the user (the default scope), it also registers ctxkeep's MCP server (` + "`ctxkeep mcp`" + `: the tools
search, show and recall) in the client's own configuration, ~/.claude.json (in CLAUDE_CONFIG_DIR
when set), as ` + "`claude mcp add --scope user`" + ` would, edited with the same care and backed up; then
views name the tools instead of the command line (docs/MCP.md). --plugin writes the server into
the plugin folder too (.mcp.json).

It also adds the slash commands /pin-last, /pin-next, /pin-start and /pin-end, creates the data
folders and migrates the index, so that hooks never have to.

--agent codex sets up OpenAI's Codex CLI instead: "<this binary> hook --agent codex" in
$CODEX_HOME/hooks.json (default ~/.codex), each hook trusted in $CODEX_HOME/config.toml as
Codex's own review does (Codex skips untrusted hooks without a word); both files are kept,
backed up and replaced the same way. docs/CODEX.md.

--agent gemini sets up Google's Gemini CLI: "<this binary> hook --agent gemini" in
~/.gemini/settings.json (in $GEMINI_CLI_HOME/.gemini when set), kept, backed up and replaced the
same way; its timeouts are in milliseconds there. docs/GEMINI.md.

Without --agent, install sets up every client it finds (~/.claude, $CODEX_HOME or ~/.codex,
~/.gemini, claude, codex and gemini on PATH), Claude Code alone when it finds none, and says
which.`,
	examples: []string{
		"ctxkeep install",
		"ctxkeep install --statusline",
		"ctxkeep install --project --dry-run",
		"ctxkeep install --plugin ~/ctxkeep-plugin",
		"ctxkeep install --agent codex",
		"ctxkeep install --agent gemini",
	},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &installOptions{}
		o.scopes.register(fs)
		fs.BoolVar(&o.dryRun, "dry-run", false, "print the change to the settings file, change nothing")
		fs.StringVar(&o.plugin, "plugin", "", "write a Claude Code plugin folder to `DIR` instead of editing settings (load it with claude --plugin-dir DIR)")
		o.status.register(fs)
		fs.StringVar(&o.agent, "agent", "", agentFlagDoc)
		return o.run
	},
}

type installOptions struct {
	agent  string
	scopes scopeFlags
	dryRun bool
	plugin string
	status statusOptions // --statusline, --force
}

func (o *installOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("install", pos); err != nil {
		return err
	}
	if o.status.force && !o.status.enabled {
		return usageErrorf("--force only goes with --statusline: it replaces another statusLine")
	}
	claude, withCodex, withGemini, err := a.installTargets(o.agent, o.scopes.any() || o.plugin != "" || o.status.enabled)
	if err != nil {
		return err
	}
	if withGemini {
		if err := a.installGemini(ctx, o.dryRun, !claude && !withCodex); err != nil || !claude && !withCodex {
			return err
		}
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
	if o.plugin != "" && (o.dryRun || o.scopes.any()) {
		return usageErrorf("--plugin writes a plugin folder: it does not go with --dry-run, --user, --project or --local")
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
		if err := a.printDryRun(res, "install"); err != nil || scope != claudecode.User {
			return err
		}
		return a.installMCP(reg, true)
	}
	if o.status.replaced != nil {
		if err := a.keepReplacedStatusLine(path, o.status.replaced); err != nil {
			return err
		}
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
	if scope == claudecode.User {
		if err := a.installMCP(reg, false); err != nil {
			return err
		}
	}
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
		return refused(err, "fix %s by hand at the line and column named (it was left untouched), then run the command again", path)
	}
	return err
}

// registration is what ctxkeep asks the client to run, for every event
// ctxkeep handles: the lean hook executable beside this binary
// (ctxkeep-hook, which `make install` puts there) with "hook", else this
// binary's absolute path with "hook". Either way the path is absolute, and
// the MCP server is this binary's.
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
	mcp := claudecode.CtxkeepMCPServer(exe)
	reg := claudecode.Registration{Command: claudecode.ShellQuote(hookExecutable(exe)) + " hook", MCP: &mcp, CLI: exe}
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

var uninstallCmd = &command{
	name:    "uninstall",
	usage:   "uninstall [--agent claude-code|codex|gemini] [--user | --project | --local] [--dry-run]",
	summary: "remove ctxkeep's hooks and MCP server from Claude Code (and its hooks from Codex and Gemini CLI)",
	group:   groupSetup,
	long: `Removes ctxkeep's handlers (and the groups, events and hooks object they leave empty), and the
statusLine when it is ctxkeep's, and (for the user) ctxkeep's MCP server from ~/.claude.json, and
nothing else: your own hooks and servers stay as you wrote them, and the statusLine that
` + "`install --statusline --force`" + ` replaced is put back. Install followed by uninstall gives back
each file byte for byte, however it was formatted, when nothing else changed in it. The pin
slash commands ctxkeep wrote go too (yours of the same name stay), and their folder when
ctxkeep's were all it held, unless ctxkeep is still registered in another scope that uses the
same folder. Stored data is kept; the command says where it is.

--agent codex removes ctxkeep's hooks from $CODEX_HOME/hooks.json and their trust from
config.toml (your hooks that move up keep their trust); plain uninstall does it too where ctxkeep
is registered with Codex.

--agent gemini removes ctxkeep's hooks from ~/.gemini/settings.json; when nothing else changed
since install, the file is written back byte for byte as it was (from install's backup). Plain
uninstall does it too where ctxkeep is registered with Gemini CLI.`,
	examples: []string{"ctxkeep uninstall", "ctxkeep uninstall --project --dry-run", "ctxkeep uninstall --agent codex", "ctxkeep uninstall --agent gemini"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &uninstallOptions{}
		o.scopes.register(fs)
		fs.BoolVar(&o.dryRun, "dry-run", false, "print the change to the settings file, change nothing")
		fs.StringVar(&o.agent, "agent", "", "the client, `AGENT`: claude-code, codex or gemini (default: Claude Code, and Codex and Gemini CLI where ctxkeep is registered)")
		return o.run
	},
}

type uninstallOptions struct {
	agent  string
	scopes scopeFlags
	dryRun bool
}

func (o *uninstallOptions) run(_ context.Context, a *app, pos []string) error {
	if err := noArgs("uninstall", pos); err != nil {
		return err
	}
	switch {
	case o.agent == ctxkeep.AgentGemini:
		return a.uninstallGemini(o.dryRun)
	case o.agent == "" && !o.scopes.any() && a.geminiInstalled():
		if err := a.uninstallGemini(o.dryRun); err != nil {
			return err
		}
	}
	switch {
	case o.agent == ctxkeep.AgentCodex:
		return a.uninstallCodex(o.dryRun)
	case o.agent == "" && !o.scopes.any() && a.codexInstalled():
		if err := a.uninstallCodex(o.dryRun); err != nil {
			return err
		}
	case o.agent != "" && o.agent != ctxkeep.AgentClaudeCode:
		return usageErrorf("unknown agent %q: want claude-code, codex or gemini", o.agent)
	}
	scope, err := o.scopes.scope()
	if err != nil {
		return err
	}
	path := a.settingsPath(scope)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s (no such file)\n", path)
		if scope == claudecode.User {
			return a.uninstallMCP(o.dryRun)
		}
		return nil
	}
	replaced, _ := a.replacedStatusLines()
	res, err := claudecode.ApplyFile(path, removeAll(replaced[path]), claudecode.ApplyOptions{DryRun: o.dryRun, Now: a.Now()})
	if err != nil {
		return malformedHint(err, path)
	}
	if !o.dryRun && replaced[path] != nil {
		if err := a.keepReplacedStatusLine(path, nil); err != nil {
			return err
		}
	}
	if o.dryRun {
		if err := a.printDryRun(res, "uninstall"); err != nil {
			return err
		}
		if scope == claudecode.User {
			if err := a.uninstallMCP(true); err != nil {
				return err
			}
		}
		return a.removePinCommands(scope, true)
	}
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "ctxkeep is not installed in %s\n", path)
	} else {
		fmt.Fprintf(a.Stdout, "removed ctxkeep's hooks from %s (backup: %s)\n", path, res.Backup)
		if replaced[path] != nil {
			fmt.Fprintf(a.Stdout, "put back your statusLine, which `install --statusline --force` had replaced: %s\n", compactJSON(replaced[path]))
		}
	}
	if scope == claudecode.User {
		if err := a.uninstallMCP(false); err != nil {
			return err
		}
	}
	if err := a.removePinCommands(scope, false); err != nil {
		return err
	}
	for _, other := range a.installedScopes() {
		if other.scope != scope {
			fmt.Fprintf(a.Stdout, "note: ctxkeep is still registered in %s (%s settings): `ctxkeep uninstall --%s`\n", other.path, other.scope, other.scope)
		}
	}
	if d, err := a.dirs(); err == nil && d.Data == d.State { // CTXKEEP_HOME: one folder
		fmt.Fprintf(a.Stdout, "your stored data stays in %s; delete that folder to remove it\n", d.Data)
	} else if err == nil {
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

// HookExecutable is the lean executable the clients run for hooks
// (cmd/ctxkeep-hook): it links only what hooks use.
const HookExecutable = "ctxkeep-hook"

// hookExecutable is the hook executable beside exe when there is one, else
// exe itself (`ctxkeep hook` runs the same code, in a larger process).
func hookExecutable(exe string) string {
	h := filepath.Join(filepath.Dir(exe), HookExecutable+filepath.Ext(exe))
	if st, err := os.Stat(h); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return h
	}
	return exe
}

// compactJSON is a JSON value on one line, for a message.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return cell(string(raw), 200)
	}
	return cell(b.String(), 200)
}
