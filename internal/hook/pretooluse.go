package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/learned"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// preToolUse runs a Bash command that is likely to print a lot (a test,
// build or lint runner, or a command learned to be large) through the
// wrapper, so that its output is kept whole even if it fails. It wraps only
// when it can honestly grant the rewritten command: when the original one
// would have run without asking (claude-code-hooks.md §4.2).
func preToolUse(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	if ev.ToolName != "Bash" || !c.Config.Wrapper.Enabled || (ev.AgentID != "" && !c.Config.Swap.Subagents) {
		return nil, nil
	}
	in := claudecode.ParseInput(ev.ToolInput)
	if in.Command == "" || in.RunInBackground || swap.IsWrapped(in.Command) || !c.likelyLarge(in.Command) || !swap.Wrappable(in.Command) {
		return nil, nil
	}
	perms, err := c.permissions()
	if err != nil {
		return nil, err
	}
	if !perms.AllowsBash(ev.PermissionMode, in.Command) {
		return nil, nil
	}
	return c.wrap(in.Command, "ctxkeep keeps the whole output of a command your settings already allow")
}

// wrap rewrites the call's command to run through the wrapper, with a
// spec beside its spool for `ctxkeep capture`, and grants the rewrite
// (the permission decision a rewrite needs, in both clients).
func (c *Call) wrap(command, reason string) (*Reply, error) {
	ev := c.Event
	if err := validToolUseID(ev.ToolUseID); err != nil {
		return nil, err // the id names the spool file
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	spool := filepath.Join(c.Dirs.Spool(), ev.ToolUseID)
	if err := writeSpec(spool, captureSpec{
		SessionID: ev.SessionID, ToolUseID: ev.ToolUseID, AgentID: ev.AgentID, Agent: c.Agent,
		TranscriptPath: ev.TranscriptPath, Cwd: ev.Cwd, Project: c.Project, Command: command,
	}); err != nil {
		return nil, err
	}
	rewritten, err := withCommand(ev.ToolInput, swap.Wrap(command, exe, spool))
	if err != nil {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{
		HookEventName:            ev.HookEventName,
		UpdatedInput:             rewritten,
		PermissionDecision:       "allow",
		PermissionDecisionReason: reason,
	}}, nil
}

// likelyLarge: a configured runner, or a command learned to be large here.
func (c *Call) likelyLarge(command string) bool {
	if swap.RunsAny(command, c.Config.Wrapper.Commands) {
		return true
	}
	if !c.Config.Wrapper.Learn {
		return false
	}
	f, err := learned.Load(c.Dirs.Learned())
	return err == nil && f.Match(c.Project, command) != ""
}

// permissions reads the Bash rules of the user's, the project's and the
// local settings. The project's two files come with the repository: they
// are read as input (fsx.ReadRegular: no link, no FIFO, at most
// maxSettingsBytes). A file that is there but cannot be read is an error,
// not an empty file: its rules might deny what the others allow, and the
// wrapper grants nothing it cannot check.
func (c *Call) permissions() (claudecode.Permissions, error) {
	var files [][]byte
	for _, scope := range []claudecode.Scope{claudecode.User, claudecode.Project, claudecode.Local} {
		path := claudecode.SettingsPath(scope, c.Env.Getenv("HOME"), c.Project, c.Env.Getenv("CLAUDE_CONFIG_DIR"))
		var data []byte
		var err error
		if scope == claudecode.User {
			data, err = os.ReadFile(path) // the user's own, which may be a link (dotfiles)
		} else {
			data, err = fsx.ReadRegular(path, maxSettingsBytes)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return claudecode.Permissions{}, fmt.Errorf("permission rules: %w", err)
		}
		files = append(files, data)
	}
	return claudecode.ReadPermissions(files...), nil
}

// maxSettingsBytes bounds a project's settings file read for its rules.
const maxSettingsBytes = 4 << 20

// captureSpec tells `ctxkeep capture` whose output it is storing.
type captureSpec struct {
	SessionID      string `json:"session_id"`
	ToolUseID      string `json:"tool_use_id"`
	AgentID        string `json:"agent_id,omitempty"`
	Agent          string `json:"agent,omitempty"` // the client: "" for Claude Code
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Project        string `json:"project"` // the Bash tool's environment has no CLAUDE_PROJECT_DIR
	Command        string `json:"command"`
}

func writeSpec(spool string, spec captureSpec) error {
	data, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	if err := fsx.MkdirPrivate(filepath.Dir(spool)); err != nil {
		return err
	}
	return fsx.WriteFileReplace(spool+".json", data, fsx.FilePerm)
}

// withCommand returns a Bash tool_input with its command replaced and every
// other field (description, timeout…) kept: updatedInput replaces the input
// wholesale.
func withCommand(input json.RawMessage, command string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, err
	}
	m["command"], _ = json.Marshal(command)
	return json.Marshal(m)
}
