package codex

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

// Events are the hook events ctxkeep registers with Codex, with their
// matchers: the shell's PreToolUse only (the wrapper); every other event
// for all tools.
var Events = []claudecode.HookSpec{
	{Event: "SessionStart"},
	{Event: "UserPromptSubmit"},
	{Event: "PreToolUse", Matcher: Shell},
	{Event: "PostToolUse"},
	{Event: "PreCompact"},
	{Event: "Stop"},
	{Event: "SessionEnd"},
}

// sessionEndTimeout is the most Codex gives SessionEnd (and Interrupt)
// hooks: a longer timeout is cut to it, with a warning (codex-hooks.md §4).
const sessionEndTimeout = 3

// AgentFlag is what Codex's hook command line adds to `ctxkeep hook`, so
// that the hook knows which client called it (the payloads look alike).
const AgentFlag = "--agent codex"

// Registration is what ctxkeep registers with Codex: hookCommand (the
// binary, quoted for the shell, then "hook"), told it is Codex that calls
// ("--agent codex"), for each of Events, with timeout(event) seconds.
func Registration(hookCommand string, timeout func(event string) int) claudecode.Registration {
	reg := claudecode.Registration{Command: hookCommand + " " + AgentFlag}
	for _, e := range Events {
		e.Timeout = timeout(e.Event)
		if e.Event == "SessionEnd" {
			e.Timeout = min(e.Timeout, sessionEndTimeout)
		}
		reg.Hooks = append(reg.Hooks, e)
	}
	return reg
}

// Installed says what Install or Uninstall changed, or would change in a
// dry run.
type Installed struct {
	Hooks   claudecode.ApplyResult // hooks.json
	Config  claudecode.ApplyResult // config.toml
	Trusted []Trust                // ctxkeep's handlers, now trusted
	Moved   []Trust                // the user's handlers whose trust moved with them
}

// Install registers reg in home's hooks.json and records ctxkeep's
// handlers as trusted in home's config.toml, as Codex's own review would.
// Both files are edited as Claude Code's settings are (claudecode.ApplyFile:
// the user's hooks and keys kept, a backup, an atomic replace under a
// lock, again if the file changed meanwhile).
func Install(home string, reg claudecode.Registration, opt claudecode.ApplyOptions) (Installed, error) {
	return apply(home, func(b []byte) ([]byte, bool, error) { return claudecode.AddHooks(b, reg) }, opt)
}

// Uninstall takes ctxkeep's handlers out of home's hooks.json and their
// trust out of config.toml.
func Uninstall(home string, opt claudecode.ApplyOptions) (Installed, error) {
	return apply(home, claudecode.RemoveHooks, opt)
}

func apply(home string, edit func([]byte) ([]byte, bool, error), opt claudecode.ApplyOptions) (Installed, error) {
	var res Installed
	home, err := filepath.Abs(home)
	if err != nil {
		return res, err
	}
	path := HooksFile(home)
	before, err := readOrEmpty(path)
	if err != nil {
		return res, err
	}
	if res.Hooks, err = claudecode.ApplyFile(path, edit, opt); err != nil {
		return res, err
	}
	after, err := readOrEmpty(path)
	if opt.DryRun {
		after, _, err = edit(before)
	}
	if err != nil {
		return res, err
	}
	was, err := Handlers(before)
	if err != nil {
		return res, err
	}
	now, err := Handlers(after)
	if err != nil {
		return res, err
	}
	for _, h := range now {
		if h.Ours {
			res.Trusted = append(res.Trusted, Trust{Key: h.Key(path), Hash: h.Hash()})
		}
	}
	// ApplyFile edits twice (a first look, then under the lock), most
	// often the same content: the result of the first is reused then, for
	// Codex's file may hold a hundred thousand tables.
	var last struct {
		in, out []byte
		changed bool
		moved   []Trust
	}
	res.Config, err = claudecode.ApplyFile(ConfigFile(home), func(cfg []byte) ([]byte, bool, error) {
		if last.in != nil && bytes.Equal(cfg, last.in) {
			res.Moved = last.moved
			return last.out, last.changed, nil
		}
		sc, err := scanConfig(cfg)
		if err != nil {
			return nil, false, err
		}
		hashes, _, _ := sc.state() // editTrust refuses what cannot take the tables
		res.Moved = moved(path, was, now, hashes)
		out, changed, err := editTrust(cfg, path, res.Trusted, res.Moved)
		if err == nil {
			last.in, last.out, last.changed, last.moved = bytes.Clone(cfg), out, changed, res.Moved
		}
		return out, changed, err
	}, opt)
	return res, err
}

// moved finds the user's handlers that a change of hooks.json moved to
// another index (ctxkeep's handlers taken out before them), and that were
// trusted at the old one: their trust is to follow them, or Codex would
// drop them without a word.
func moved(path string, was, now []Handler, trusted map[string]string) []Trust {
	var out []Trust
	for _, event := range events(now) {
		old, cur := theirs(was, event), theirs(now, event)
		if len(old) != len(cur) {
			continue // the user's own handlers changed too: nothing to follow
		}
		for i := range cur {
			oldKey, newKey, hash := old[i].Key(path), cur[i].Key(path), cur[i].Hash()
			if oldKey != newKey && old[i].Hash() == hash && trusted[oldKey] == hash && trusted[newKey] != hash {
				out = append(out, Trust{Key: newKey, Hash: hash})
			}
		}
	}
	return out
}

func events(hs []Handler) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hs {
		if !seen[h.Event] {
			seen[h.Event] = true
			out = append(out, h.Event)
		}
	}
	return out
}

// theirs are an event's handlers that are not ctxkeep's, in order.
func theirs(hs []Handler, event string) []Handler {
	var out []Handler
	for _, h := range hs {
		if h.Event == event && !h.Ours {
			out = append(out, h)
		}
	}
	return out
}

func readOrEmpty(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Status is how Codex will treat ctxkeep's handlers of a hooks file.
type Status struct {
	HooksFile string
	Handlers  []Handler // ctxkeep's
	Events    []string  // of Events, those without a ctxkeep handler
	Untrusted []Handler // ctxkeep's handlers Codex would skip: no trust, or a hash of another version
	HooksOff  bool      // [features] hooks = false
}

// Check reads home's hooks.json and config.toml and says whether Codex
// will run ctxkeep's hooks: every event registered, every handler trusted
// with the hash of what it runs now.
func Check(home string) (Status, error) {
	home, err := filepath.Abs(home)
	if err != nil {
		return Status{}, err
	}
	st := Status{HooksFile: HooksFile(home)}
	data, err := readOrEmpty(st.HooksFile)
	if err != nil {
		return st, err
	}
	all, err := Handlers(data)
	if err != nil {
		return st, err
	}
	cfg, err := readOrEmpty(ConfigFile(home))
	if err != nil {
		return st, err
	}
	hashes, off, err := TrustState(cfg)
	if err != nil {
		return st, err
	}
	st.HooksOff = off
	have := map[string]bool{}
	for _, h := range all {
		if !h.Ours {
			continue
		}
		st.Handlers = append(st.Handlers, h)
		have[h.Event] = true
		if hashes[h.Key(st.HooksFile)] != h.Hash() {
			st.Untrusted = append(st.Untrusted, h)
		}
	}
	for _, e := range Events {
		if !have[e.Event] {
			st.Events = append(st.Events, e.Event)
		}
	}
	return st, nil
}
