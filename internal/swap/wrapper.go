package swap

import (
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

// The wrapper runs a command so that its whole output is kept even when it
// fails: the client cannot replace a failed Bash result and cuts it to
// about 10,000 characters without saving it (claude-code-hooks.md §6).
//
//	{ <command>
//	} > <spool>.out 2>&1; __ctxkeep_rc=$?; <ctxkeep> capture <spool> "$__ctxkeep_rc"; (exit "$__ctxkeep_rc")
//
// A brace group, not `bash -c`, so that a `cd` in the command still holds
// afterwards (§4.3); the newline before `}` so that a command ending in a
// comment still closes the group. `ctxkeep capture` stores the output and
// prints it, or its view when it is large; the last subshell gives the
// command's own exit status back to the client.

const rcVar = "__ctxkeep_rc"

// Wrap returns command rewritten to run through `exe capture spool`.
func Wrap(command, exe, spool string) string {
	q := claudecode.ShellQuote
	return "{ " + command + "\n} > " + q(spool+".out") + " 2>&1; " + rcVar + "=$?; " +
		q(exe) + " capture " + q(spool) + ` "$` + rcVar + `"; (exit "$` + rcVar + `")`
}

// IsWrapped reports whether a command is the wrapper's rewrite.
func IsWrapped(command string) bool {
	return strings.Contains(command, rcVar+"=$?;")
}

// Unwrap returns the command the wrapper runs, or command itself.
func Unwrap(command string) string {
	if !IsWrapped(command) || !strings.HasPrefix(command, "{ ") {
		return command
	}
	if i := strings.LastIndex(command, "\n} > "); i > 0 {
		return command[2:i]
	}
	return command
}
