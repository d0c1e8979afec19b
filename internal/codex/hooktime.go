package codex

import (
	"fmt"
	"path/filepath"
	"strings"
)

// What the hook path reads from a rollout, at the moment of a call.

// ExitCode is the exit status of the shell call callID, from the rollout's
// item_completed CommandExecution line: a PostToolUse payload carries the
// output alone (codex-hooks.md §9.2), and Codex writes that line before
// it runs PostToolUse hooks (§8; observed, not documented). ok is false
// when the line is not there (yet).
func ExitCode(rollout, callID string) (code int, ok bool) {
	err := lastLine(rollout, func(kind string, p *payload) bool {
		if kind != lineEventMsg || p.Type != "item_completed" || p.Item == nil || p.Item.ID != callID || p.Item.Type != "CommandExecution" {
			return false
		}
		if p.Item.ExitCode != nil {
			code, ok = *p.Item.ExitCode, true
		}
		return true
	})
	return code, err == nil && ok
}

// Unsandboxed reports whether the session's latest turn runs commands
// without a sandbox (sandbox_policy danger-full-access) and without asking
// about each one (approval_policy other than "untrusted"). Only then may a
// command be rewritten to run through ctxkeep's wrapper: the wrapper
// writes the output to ctxkeep's spool, outside the workspace, which a
// sandbox refuses (the command would not even run), and a user asked to
// approve every command would be shown the wrapper's.
func Unsandboxed(rollout string) bool {
	yes := false
	lastLine(rollout, func(kind string, p *payload) bool {
		if kind != lineTurnContext {
			return false
		}
		yes = p.SandboxPolicy.Type == "danger-full-access" && p.ApprovalPolicy != "untrusted"
		return true
	})
	return yes
}

// ValidRollout checks a transcript_path of a hook payload before it is
// read: absolute, clean, and a rollout file of the session
// (rollout-<time>-<session id>.jsonl, codex-hooks.md §8).
func ValidRollout(path, session string) error {
	base := filepath.Base(path)
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || !strings.HasPrefix(base, "rollout-") ||
		!strings.HasSuffix(base, "-"+session+".jsonl") {
		return fmt.Errorf("unexpected rollout path %q for session %s", path, session)
	}
	return nil
}
