// Package hook is what Claude Code spawns on every hook event: it reads one
// JSON event from stdin, routes it on hook_event_name to that event's
// handler under a deadline, and writes the handler's reply to stdout.
//
// It fails open. Bad input, an internal error, a panic or a blown deadline
// end the same way: exit 0, empty stdout, one line in ctxkeep's log. The
// agent is never blocked by a ctxkeep bug, only by a policy that decides to
// block on purpose.
//
// Every call is recorded in the session's journal (session, event, tool,
// payload size, duration, outcome) with one append, not a database
// transaction; Stop, PreCompact and the CLI move journals into the index.
package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/fastjson"
	"github.com/ctxkeep/ctxkeep/internal/logfile"
)

// handler runs one event's policy. A nil reply means no output.
type handler func(ctx context.Context, c *Call) (*Reply, error)

// Main runs one hook call of Claude Code and returns the process exit
// code: always 0.
func Main(start time.Time, env app.Env, stdin io.Reader, stdout io.Writer) int {
	return MainAgent(start, "", env, stdin, stdout)
}

// MainAgent is Main for the client the hook's command line names (`ctxkeep
// hook --agent codex`): "" is Claude Code, ctxkeep.AgentCodex Codex, whose
// payloads look alike but are answered differently, ctxkeep.AgentGemini
// Gemini CLI, whose events have names of their own. A client ctxkeep does
// not know gets its calls recorded and nothing else.
func MainAgent(start time.Time, agent string, env app.Env, stdin io.Reader, stdout io.Writer) int {
	noGC()
	table := handlers
	switch agent {
	case "", ctxkeep.AgentClaudeCode:
		agent = ""
	case ctxkeep.AgentCodex:
		table = codexHandlers
	case ctxkeep.AgentGemini:
		table = geminiHandlers
	default:
		table = nil
	}
	runAs(start, agent, env, stdin, stdout, table)
	return 0
}

// noGC turns the garbage collector off for this short-lived process: a
// hook that swaps out a megabyte of output allocates a few megabytes and
// exits in milliseconds, and collecting them only slowed it down (about
// 8 ms of 50 on a 1 MB output, docs/BENCHMARKS.md). The memory limit makes
// the collector run anyway if a call ever grows large.
func noGC() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 30)
}

func run(start time.Time, env app.Env, stdin io.Reader, stdout io.Writer, table map[string]handler) {
	runAs(start, "", env, stdin, stdout, table)
}

func runAs(start time.Time, agent string, env app.Env, stdin io.Reader, stdout io.Writer, table map[string]handler) {
	if config.Truthy(env.Getenv("CTXKEEP_DISABLE")) {
		return // the quick bypass: not even stdin is read
	}
	a, err := app.New(env)
	if err != nil {
		return // nowhere to log; stay silent
	}
	logf := func(format string, args ...any) {
		logfile.Append(a.Dirs.Log(), env.Now(), "hook: "+fmt.Sprintf(format, args...))
	}
	cfg, err := a.Config()
	if err != nil {
		logf("%v; passing through", err)
		return
	}
	if cfg.Disable {
		return
	}
	payload, err := readPayload(stdin, cfg.Limits.HookInputBytes, cfg.Limits.HookInputWait)
	if err != nil {
		logf("%v; passing through", err)
		return
	}
	ev, err := decode(payload)
	if err != nil {
		logf("%v; passing through", err)
		return
	}
	c := &Call{App: a, Agent: agent, Event: ev, Payload: payload, Config: cfg, logf: logf}
	defer c.close()
	c.geminiSessionChat()

	reply, outcome, err := dispatch(c, table)
	if err != nil {
		logf("%s session=%s: %s: %v", ev.HookEventName, ev.SessionID, outcome, err)
	}
	if err := c.record(start, outcome); err != nil {
		logf("%s session=%s: journal: %v", ev.HookEventName, ev.SessionID, err)
	}
	var partial partialError
	if reply == nil || (outcome != ctxkeep.OK && !errors.As(err, &partial)) {
		return
	}
	if cfg.Privacy.Redact {
		reply = reply.redacted()
	}
	out, err := reply.encode()
	if err != nil {
		logf("%s session=%s: encode reply: %v", ev.HookEventName, ev.SessionID, err)
		return
	}
	stdout.Write(out)
}

func decode(payload []byte) (*Event, error) {
	if len(bytes.TrimSpace(payload)) == 0 {
		return nil, errors.New("empty payload")
	}
	// Stdin is read only up to the end of a JSON value (readPayload): of
	// anything else, the first byte is all there is, so its size is not
	// known and not said.
	if t := bytes.TrimLeft(payload, " \t\r\n"); t[0] != '{' {
		return nil, fmt.Errorf("bad payload: not a JSON object (it starts with %q)", t[:1])
	}
	var ev Event
	// The tool's input and output stay slices of the payload, which the
	// call keeps: a megabyte of output is not copied before it is read.
	if err := fastjson.UnmarshalAliased(payload, &ev); err != nil {
		return nil, fmt.Errorf("bad payload (%d bytes): %w", len(payload), err)
	}
	if ev.HookEventName == "" {
		return nil, errors.New("payload has no hook_event_name")
	}
	if err := ctxkeep.ValidSessionID(ev.SessionID); err != nil {
		return nil, fmt.Errorf("%s: %w", ev.HookEventName, err)
	}
	return &ev, nil
}

// dispatch runs the event's handler under the event's deadline, turning a
// panic or a blown deadline into an outcome. Unknown events are recorded
// and otherwise ignored.
func dispatch(c *Call, table map[string]handler) (*Reply, string, error) {
	h, ok := table[c.Event.HookEventName]
	if !ok {
		return nil, ctxkeep.OK, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.Config.DeadlineFor(c.claudeEvent()))
	defer cancel()
	type result struct {
		reply   *Reply
		err     error
		outcome string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("%v\n%s", p, debug.Stack()), outcome: ctxkeep.Panicked}
			}
		}()
		reply, err := h(ctx, c)
		if err != nil {
			done <- result{reply: reply, err: err, outcome: ctxkeep.Failed} // run decides whether to write it
			return
		}
		done <- result{reply: reply, outcome: ctxkeep.OK}
	}()
	select {
	case r := <-done:
		return r.reply, r.outcome, r.err
	case <-ctx.Done():
		// The handler goroutine is abandoned; the process exits under it.
		// Everything it may be writing is atomic (blobs) or transactional.
		return nil, ctxkeep.TimedOut, fmt.Errorf("deadline of %s passed", config.FormatDuration(c.Config.DeadlineFor(c.claudeEvent())))
	}
}
