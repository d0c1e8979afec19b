package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/dirs"
	"github.com/ctxkeep/ctxkeep/internal/learned"
	"github.com/ctxkeep/ctxkeep/internal/logfile"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// Capture is `ctxkeep capture SPOOL RC`, run by the wrapper after the
// wrapped command: it stores the command's whole output and prints what
// the model should see — the output itself when it is small, else its view.
// Like a hook, it fails open: on any problem it prints the output as the
// command produced it. It always returns exit code 0; the wrapper gives the
// command's own status back to the client.
func Capture(env app.Env, spool string, rc int, stdout io.Writer) int {
	noGC()
	text, err := os.ReadFile(spool + ".out")
	if err != nil {
		fmt.Fprintf(stdout, "ctxkeep: the output of this command was lost: %v\n", err)
		return 0
	}
	defer removeSpool(spool)
	out, err := captured(env, spool, rc, string(text))
	if err != nil {
		if d, derr := dirs.Resolve(env.Getenv); derr == nil {
			logfile.Append(d.Log(), env.Now(), "capture: "+err.Error())
		}
		out = string(text)
	}
	io.WriteString(stdout, out)
	return 0
}

// captured stores text when it is large and returns what to print.
func captured(env app.Env, spool string, rc int, text string) (string, error) {
	a, err := app.New(env)
	if err != nil {
		return "", err
	}
	if !inside(spool, a.Dirs.Spool()) {
		return "", fmt.Errorf("spool %q is not in %s", spool, a.Dirs.Spool())
	}
	spec, err := readSpec(spool)
	if err != nil {
		return "", err
	}
	if spec.Project != "" {
		a.ForProject(spec.Project) // the Bash tool's environment has no CLAUDE_PROJECT_DIR
	}
	cfg, err := a.Config()
	if err != nil {
		return "", err
	}
	if !swap.Over(text, cfg.ThresholdFor("Bash")) {
		return text, nil
	}
	c := &Call{App: a, Config: cfg, Event: spec.event(), logf: func(string, ...any) {}}
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.DeadlineFor("PostToolUse"))
	defer cancel()
	return c.swapOut(ctx, spec.Command, text, rc)
}

// swapOut stores a Bash output and returns its view; it also learns the
// command as large.
func (c *Call) swapOut(ctx context.Context, command, text string, rc int) (string, error) {
	sessionDir, err := claudecode.SessionDir(c.Event.TranscriptPath, c.Event.SessionID)
	if err != nil {
		return "", err
	}
	item := swap.Item{
		ID: swap.EntryID(c.Event.SessionID, c.Event.ToolUseID), Tool: "Bash",
		Input: command, Text: text, Exit: rc,
	}
	view, err := c.putOutput(ctx, &item, sessionDir)
	if err != nil {
		return "", err
	}
	c.learn(command, len(text))
	return view, nil
}

// learn remembers a command whose output was large, for the wrapper.
func (c *Call) learn(command string, chars int) {
	if !c.Config.Wrapper.Learn {
		return
	}
	if err := learned.Record(c.Dirs.Learned(), c.Project, swap.Unwrap(command), chars, c.Env.Now()); err != nil {
		c.logf("learn %q: %v", command, err)
	}
}

func (s captureSpec) event() *Event {
	return &Event{
		SessionID: s.SessionID, ToolUseID: s.ToolUseID, AgentID: s.AgentID, TranscriptPath: s.TranscriptPath,
		Cwd: s.Cwd, HookEventName: "PostToolUse", ToolName: "Bash",
	}
}

func readSpec(spool string) (captureSpec, error) {
	var spec captureSpec
	data, err := os.ReadFile(spool + ".json")
	if err != nil {
		return spec, err
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		return spec, fmt.Errorf("spool %s: %w", spool, err)
	}
	return spec, nil
}

func removeSpool(spool string) {
	os.Remove(spool + ".out")
	os.Remove(spool + ".json")
}

func inside(path, dir string) bool {
	return claudecode.Within(path, dir) && filepath.Dir(filepath.Clean(path)) == filepath.Clean(dir)
}

// postToolUseFailure cannot replace a failed command's output (the client
// does not allow it), so it does two other things. A wrapped command that
// never reached `ctxkeep capture` (killed at its timeout, or an `exit`
// inside it) left its whole output in the spool: it is stored now and its
// view added as context. And a command whose failure output was cut by the
// client is learned, so that the wrapper captures it whole next time.
func postToolUseFailure(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	if ev.ToolName != "Bash" {
		return nil, nil
	}
	in := claudecode.ParseInput(ev.ToolInput)
	if !swap.IsWrapped(in.Command) {
		if len(ev.Error) >= clientCutChars {
			c.learn(in.Command, len(ev.Error))
		}
		return nil, nil
	}
	spool := filepath.Join(c.Dirs.Spool(), ev.ToolUseID)
	text, err := os.ReadFile(spool + ".out")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // capture ran: the model already saw the view
	}
	if err != nil {
		return nil, err
	}
	defer removeSpool(spool)
	view, err := c.swapOut(ctx, swap.Unwrap(in.Command), string(text), exitCode(ev.Error))
	if err != nil {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{
		HookEventName:     ev.HookEventName,
		AdditionalContext: "The command above was cut short; ctxkeep kept all the output it printed:\n" + view,
	}}, nil
}

// clientCutChars is about where the client starts cutting a failed
// command's output (head 5k + tail 5k, claude-code-hooks.md §6).
const clientCutChars = 9500

// exitCode reads "Exit code 143\n…" from a failure's error text.
func exitCode(errText string) int {
	var code int
	if _, err := fmt.Sscanf(strings.TrimSpace(errText), "Exit code %d", &code); err != nil {
		return swap.NoExit
	}
	return code
}
