package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

// Events are the hook events ctxkeep registers with Gemini CLI, with their
// matchers (a regular expression of tool names for the tool events, "*"
// all of them): the shell's BeforeTool only (the wrapper); AfterTool for
// every tool.
var Events = []claudecode.HookSpec{
	{Event: "SessionStart"},
	{Event: "BeforeAgent"},
	{Event: "BeforeModel"},
	{Event: "BeforeTool", Matcher: Shell},
	{Event: "AfterTool", Matcher: "*"},
	{Event: "PreCompress"},
	{Event: "AfterAgent"},
	{Event: "SessionEnd"},
}

// ClaudeEvent is the Claude Code event whose deadline (config deadline.*)
// and role a Gemini event takes: BeforeModel, which puts the restore block
// back after a compression, has SessionStart's.
var ClaudeEvent = map[string]string{
	"SessionStart": "SessionStart",
	"BeforeAgent":  "UserPromptSubmit",
	"BeforeModel":  "SessionStart",
	"BeforeTool":   "PreToolUse",
	"AfterTool":    "PostToolUse",
	"PreCompress":  "PreCompact",
	"AfterAgent":   "Stop",
	"SessionEnd":   "SessionEnd",
}

// AgentFlag is what Gemini's hook command line adds to `ctxkeep hook`, so
// that the hook knows which client called it.
const AgentFlag = "--agent gemini"

// Registration is what ctxkeep registers with Gemini CLI: hookCommand (the
// executable, quoted for the shell, then "hook"), told it is Gemini that
// calls, for each of Events, with timeoutSeconds(the Claude Code event)
// as Gemini's timeout, which is in milliseconds.
func Registration(hookCommand string, timeoutSeconds func(event string) int) claudecode.Registration {
	reg := claudecode.Registration{Command: hookCommand + " " + AgentFlag}
	for _, e := range Events {
		e.Timeout = timeoutSeconds(ClaudeEvent[e.Event]) * 1000
		reg.Hooks = append(reg.Hooks, e)
	}
	return reg
}

// Install registers reg in home's settings.json, as Claude Code's
// settings are edited (claudecode.ApplyFile: the user's settings and hooks
// kept as they are, a backup, an atomic replace under a lock, again if the
// file changed meanwhile). A settings file with comments, which Gemini
// CLI allows, is not edited (claudecode.ErrMalformed).
func Install(home string, reg claudecode.Registration, opt claudecode.ApplyOptions) (claudecode.ApplyResult, error) {
	return claudecode.ApplyFile(SettingsFile(home), func(b []byte) ([]byte, bool, error) { return claudecode.AddHooks(b, reg) }, opt)
}

// Uninstall takes ctxkeep's hooks out of home's settings.json. When what
// is left is, as JSON, the file as it was before ctxkeep was installed (a
// backup install made that holds no ctxkeep hook), that backup's bytes
// are written back: the file is restored byte for byte, its layout
// included. Otherwise (the user changed something since) ctxkeep's hooks
// are taken out and the rest kept.
func Uninstall(home string, opt claudecode.ApplyOptions) (claudecode.ApplyResult, error) {
	path := SettingsFile(home)
	return claudecode.ApplyFile(path, func(b []byte) ([]byte, bool, error) {
		out, changed, err := claudecode.RemoveHooks(b)
		if err != nil || !changed {
			return out, changed, err
		}
		if orig, ok := pristine(path, out); ok {
			return orig, true, nil
		}
		return out, true, nil
	}, opt)
}

// pristine returns the newest backup of path that holds no ctxkeep hook
// and equals want as JSON.
func pristine(path string, want []byte) ([]byte, bool) {
	names, _ := filepath.Glob(globEscape(path) + ".ctxkeep-backup-*")
	slices.Sort(names)
	for i := len(names) - 1; i >= 0; i-- {
		data, err := os.ReadFile(names[i])
		if err != nil {
			continue
		}
		if found, err := claudecode.FindHooks(data); err != nil || len(found) > 0 {
			continue
		}
		if sameJSON(data, want) {
			return data, true
		}
	}
	return nil, false
}

func sameJSON(a, b []byte) bool {
	if len(bytes.TrimSpace(a)) == 0 {
		a = []byte("{}")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}")
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

func globEscape(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Status is what Check found in the user's settings.
type Status struct {
	SettingsFile string
	Handlers     []claudecode.Found // ctxkeep's, in file order
	Missing      []string           // events of Events with no ctxkeep handler
	HooksOff     bool               // hooksConfig.enabled is false: the CLI runs no hook
}

// Check reads the user's settings for ctxkeep's hooks. A missing file is
// no error: nothing is installed.
func Check(home string) (Status, error) {
	st := Status{SettingsFile: SettingsFile(home)}
	data, err := os.ReadFile(st.SettingsFile)
	if errors.Is(err, fs.ErrNotExist) {
		st.Missing = eventNames()
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if st.Handlers, err = claudecode.FindHooks(data); err != nil {
		return st, err
	}
	for _, e := range Events {
		if !slices.ContainsFunc(st.Handlers, func(f claudecode.Found) bool { return f.Event == e.Event }) {
			st.Missing = append(st.Missing, e.Event)
		}
	}
	var s struct {
		HooksConfig struct {
			Enabled *bool `json:"enabled"`
		} `json:"hooksConfig"`
	}
	json.Unmarshal(data, &s)
	st.HooksOff = s.HooksConfig.Enabled != nil && !*s.HooksConfig.Enabled
	return st, nil
}

func eventNames() []string {
	var out []string
	for _, e := range Events {
		out = append(out, e.Event)
	}
	return out
}
