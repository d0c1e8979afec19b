package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ctxkeep/ctxkeep"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
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
//
// SPOOL comes from a command line the agent's shell runs, so it is input:
// only a spool in ctxkeep's spool folder is stored and removed; any other
// is shown as it is and left alone. Either way the output is opened as
// fsx.OpenRegular does (no link, no FIFO).
func Capture(env app.Env, spool string, rc int, stdout io.Writer) int {
	noGC()
	a, err := app.New(env)
	if err != nil {
		passOn(spool, stdout) // nowhere to log, and no spool folder to compare with
		return 0
	}
	logf := func(format string, args ...any) {
		logfile.Append(a.Dirs.Log(), env.Now(), "capture: "+fmt.Sprintf(format, args...))
	}
	if !inside(spool, a.Dirs.Spool()) {
		logf("spool %q is not in %s: its output is shown, not stored", spool, a.Dirs.Spool())
		passOn(spool, stdout)
		return 0
	}
	defer removeSpool(spool)
	spec, err := readSpec(spool)
	if err != nil {
		logf("%v", err)
		passOn(spool, stdout)
		return 0
	}
	if spec.Project != "" {
		a.ForProject(spec.Project) // the Bash tool's environment has no CLAUDE_PROJECT_DIR
	}
	cfg, err := a.Config()
	if err != nil {
		logf("%v", err)
		passOn(spool, stdout)
		return 0
	}
	text, err := fsx.ReadRegular(spool+".out", cfg.Limits.MaxOutputBytes)
	if err != nil {
		logf("%v", err)
		passOn(spool, stdout)
		return 0
	}
	out, err := captured(a, cfg, spec, rc, string(text))
	if err != nil {
		logf("%v", err)
		out = string(text)
	}
	io.WriteString(stdout, out)
	return 0
}

// passOn copies a spool's output to stdout as the command printed it, for
// an output that is not stored: streamed, whatever its size.
func passOn(spool string, stdout io.Writer) {
	f, _, err := fsx.OpenRegular(spool + ".out")
	if err != nil {
		fmt.Fprintf(stdout, "ctxkeep: the output of this command was lost: %v\n", err)
		return
	}
	defer f.Close()
	io.Copy(stdout, f)
}

// captured stores text when it is large, or when a condenser shrinks it
// enough, and returns what to print.
func captured(a *app.App, cfg *config.Config, spec captureSpec, rc int, text string) (string, error) {
	call := swap.Call{Tool: "Bash", Command: spec.Command, Agent: spec.AgentID != ""}
	over := swap.Over(text, cfg.ThresholdFor("Bash"))
	cd := swap.Condensing(call, text, cfg)
	if !over && cd == nil && !swap.Cleaning(call, text) {
		return text, nil
	}
	c := &Call{App: a, Agent: spec.Agent, Config: cfg, Event: spec.event(), logf: func(string, ...any) {}}
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.DeadlineFor("PostToolUse"))
	defer cancel()
	out, err := c.swapOut(ctx, spec.Command, text, rc, cd, over)
	if err == nil && out == "" {
		return text, nil // not condensed enough: printed as it is
	}
	return out, err
}

// swapOut stores a Bash output and returns what the model sees instead
// (see putOutput); a swapped output's command is learned as large.
func (c *Call) swapOut(ctx context.Context, command, text string, rc int, cd *swap.Condenser, over bool) (string, error) {
	sessionDir, err := c.sessionDir()
	if err != nil {
		return "", err
	}
	item := swap.Item{
		ID: swap.EntryID(c.Event.SessionID, c.Event.ToolUseID), Tool: "Bash",
		Input: command, Text: text, Exit: rc,
	}
	view, err := c.putOutput(ctx, &item, sessionDir, c.renderer(cd, over), !over)
	if err != nil || view == "" {
		return "", err
	}
	if over {
		c.learn(command, len(text))
	}
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

// readSpec reads what the PreToolUse hook wrote beside the spool. The
// file is ctxkeep's own, but the agent's shell could have replaced it: it
// is read like any input, and its ids are checked again.
func readSpec(spool string) (captureSpec, error) {
	var spec captureSpec
	data, err := fsx.ReadRegular(spool+".json", maxSpecBytes)
	if err != nil {
		return spec, err
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		return spec, fmt.Errorf("spool %s: %w", spool, err)
	}
	if err := ctxkeep.ValidSessionID(spec.SessionID); err != nil {
		return spec, fmt.Errorf("spool %s: %w", spool, err)
	}
	if err := validToolUseID(spec.ToolUseID); err != nil {
		return spec, fmt.Errorf("spool %s: %w", spool, err)
	}
	return spec, nil
}

// maxSpecBytes bounds a spool's spec: ids, paths and the command, which
// the client keeps far below this.
const maxSpecBytes = 4 << 20

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
	if err := validToolUseID(ev.ToolUseID); err != nil {
		return nil, err // no spool of ours has such a name
	}
	spool := filepath.Join(c.Dirs.Spool(), ev.ToolUseID)
	text, err := fsx.ReadRegular(spool+".out", c.Config.Limits.MaxOutputBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // capture ran: the model already saw the view
	}
	defer removeSpool(spool)
	if err != nil {
		return nil, err
	}
	view, err := c.swapOut(ctx, swap.Unwrap(in.Command), string(text), exitCode(ev.Error), nil, true)
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
