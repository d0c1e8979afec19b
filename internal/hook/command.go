package hook

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/app"
)

// Command runs one of the commands the clients run on their hot path —
// `hook [--agent AGENT]` (one event on stdin, the reply on stdout) and
// `capture SPOOL RC` (the wrapper's end) — and returns the exit code. The
// lean executable (cmd/ctxkeep-hook) is this alone; `ctxkeep hook` and
// `ctxkeep capture` run the same code.
func Command(start time.Time, args []string, env app.Env, stdin io.Reader, stdout, stderr io.Writer) int {
	PrivateFiles()
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "hook":
		IgnoreSIGPIPE()
		return MainAgent(start, AgentOf(args[1:]), env, stdin, stdout)
	case "capture":
		if len(args) != 3 {
			fmt.Fprintf(stderr, "ctxkeep-hook: capture takes SPOOL and RC, got %d argument(s)\n", len(args)-1)
			return 2
		}
		rc, err := strconv.Atoi(args[2])
		if err != nil {
			rc = -1 // unknown: the output still goes through
		}
		IgnoreSIGPIPE() // a reader that went away must not turn the command's status into 141
		return Capture(env, args[1], rc, stdout)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, Version())
		return 0
	}
	fmt.Fprintf(stderr, "ctxkeep-hook: unknown command %q\n%s\n", args[0], usage)
	return 2
}

const usage = `usage: ctxkeep-hook hook [--agent codex|gemini] | capture SPOOL RC | statusline [--plain] | version
ctxkeep-hook is what Claude Code, Codex and Gemini CLI run on every hook event, and the wrapper after a
wrapped command: the part of ctxkeep the agent waits for, in an executable that loads nothing
else. People use ctxkeep (see ctxkeep help hook).`

// AgentOf reads the client from the hook's command line: `hook --agent
// codex` (or --agent=codex), "" for plain `hook` (Claude Code). No flag
// package: this is the hot path.
func AgentOf(args []string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--agent="); ok {
			return v
		}
		if a == "--agent" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
