package swap

import (
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/shell"
)

// The wrapper runs a command so that its whole output is kept even when it
// fails: the client cannot replace a failed Bash result and cuts it to
// about 10,000 characters without saving it (claude-code-hooks.md §6).
//
//	eval '<command>' > <spool>.out 2>&1; __ctxkeep_rc=$?; <ctxkeep> capture <spool> "$__ctxkeep_rc"; (exit "$__ctxkeep_rc")
//
// The command is one single-quoted word given to eval, so no text in it —
// a trailing backslash, a heredoc, a comment, a brace — can change how the
// wrapper around it is read: eval parses it as the shell would have, and
// runs it in the current shell, so a `cd` in it still holds afterwards
// (§4.3). Only a command the parser reads (shell.Read) is wrapped; bash
// reads it too (internal/shell's TestReadsWhatBashReads). `ctxkeep
// capture` stores the output and prints it, or its view when it is large;
// the last subshell gives the command's own exit status back to the
// client.
//
// The eval form stays, now that the command is parsed: a brace group
// `{ <command>\n}` would need the command's text to end where the parser
// says (a here-document, a trailing backslash or comment before the `}`),
// and `bash -c` would run it in a child, losing a `cd`.

const (
	rcVar      = "__ctxkeep_rc"
	evalPrefix = "eval "
)

// Wrap returns command rewritten to run through `exe capture spool`. Only
// a command Wrappable accepts is to be wrapped.
func Wrap(command, exe, spool string) string {
	q := claudecode.ShellQuote
	return evalPrefix + q(command) + " > " + q(spool+".out") + " 2>&1; " + rcVar + "=$?; " +
		q(exe) + " capture " + q(spool) + ` "$` + rcVar + `"; (exit "$` + rcVar + `")`
}

// Wrappable reports whether a command behaves the same wrapped: its
// output, exit status and working directory reach the client as they
// would alone. It is decided on the command's syntax tree (shell.Read),
// and a command that does not parse is left alone. Refused, wherever it
// runs in the shell that runs the line (not in a subshell, a substitution
// or a pipeline's first stages, where it cannot reach the wrapper):
//
//   - what may end that shell before capture runs: exit, exec, logout
//     (the output would stay in the spool); an eval whose text is known
//     only when it runs; a program named by an expansion ($CMD);
//   - what changes how the wrapper's own lines run: set -e, -x, -v, -n,
//     -t, -o posix… (set -x traces them), shopt -o -s of the same, trap
//     (an ERR or DEBUG trap would fire on them), ulimit (capture is a
//     process), enable, a function named exit or eval;
//   - a job left in the background, anywhere (it would write into a spool
//     already removed);
//   - a leading '-' (eval would read it as an option).
//
// Text is not a command: `echo exit`, `git commit -m "exit early"` and a
// here-document that says exit are wrapped.
func Wrappable(command string) bool { return refusal(command) == "" }

// refusal says why Wrappable refuses a command, or "".
func refusal(command string) string {
	if strings.HasPrefix(command, "-") {
		return "starts with '-'"
	}
	line, err := shell.Read(command)
	switch {
	case err != nil:
		return "does not parse: " + err.Error()
	case line.Background:
		return "leaves a job in the background"
	}
	for _, f := range line.Functions {
		if f == "exit" || f == "eval" {
			return "declares a function named " + f
		}
	}
	for i := range line.Commands {
		if c := &line.Commands[i]; !c.Child {
			if why := changesShell(c); why != "" {
				return why
			}
		}
	}
	return ""
}

// changesShell says how a command run by the shell that runs the wrapper
// would keep the wrapper from running as written, or "".
func changesShell(c *shell.Command) string {
	p := c.Program()
	if p == len(c.Args) {
		return ""
	}
	if !c.Literal(p) {
		return "runs a program known only when it runs"
	}
	name, args := c.Args[p], c.Args[p+1:]
	switch name {
	case "set", "shopt", "ulimit", "trap", "enable":
		for i := range args {
			if !c.Literal(p + 1 + i) {
				return name + " with words known only when it runs"
			}
		}
	}
	switch name {
	case "exit", "exec", "logout":
		return "may end the shell: " + name
	case "eval":
		if c.Opaque {
			return "evals text known only when it runs"
		}
	case "set":
		if setsRiskyOption(args) {
			return "sets a shell option the wrapper would feel"
		}
	case "shopt":
		if shoptsRiskyOption(args) {
			return "sets a shell option the wrapper would feel"
		}
	case "trap":
		for _, a := range args {
			if a != "-p" && a != "-l" {
				return "sets a trap"
			}
		}
	case "ulimit", "enable":
		if len(args) > 0 {
			return name + " changes what the shell can run"
		}
	}
	return ""
}

// shoptsRiskyOption: `shopt -o -s errexit` is `set -o errexit`.
func shoptsRiskyOption(args []string) bool {
	var o, set bool
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			o = o || strings.ContainsRune(a, 'o')
			set = set || strings.ContainsRune(a, 's')
			continue
		}
		if o && set && riskyOptions[a] {
			return true
		}
	}
	return false
}

// setsRiskyOption reads the arguments after a `set`, up to the first that
// is not an option, for an option that changes how the rest of the wrapper
// runs: -e (errexit) ends the shell on a failure before capture; -x and
// -v trace the wrapper's own lines into the output; -n and -t stop
// running it; posix makes a syntax error in eval end the shell.
func setsRiskyOption(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o":
			if a == "-o" && i+1 < len(args) && riskyOptions[args[i+1]] {
				return true
			}
			i++ // the option's name
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			if strings.ContainsAny(a[1:], "evxnt") {
				return true
			}
		case len(a) > 1 && a[0] == '+':
		default:
			return false
		}
	}
	return false
}

var riskyOptions = map[string]bool{"errexit": true, "xtrace": true, "verbose": true, "noexec": true, "onecmd": true, "posix": true}

// IsWrapped reports whether a command is the wrapper's rewrite.
func IsWrapped(command string) bool {
	return strings.Contains(command, rcVar+"=$?;")
}

// Unwrap returns the command the wrapper runs, or command itself. It
// reads both the eval form and the brace group of earlier versions
// ("{ <command>\n} > …").
func Unwrap(command string) string {
	if !IsWrapped(command) {
		return command
	}
	if rest, ok := strings.CutPrefix(command, evalPrefix); ok {
		if word, tail, ok := unquote(rest); ok && strings.HasPrefix(tail, " > ") {
			return word
		}
		return command
	}
	if strings.HasPrefix(command, "{ ") {
		if i := strings.LastIndex(command, "\n} > "); i > 0 {
			return command[2:i]
		}
	}
	return command
}

// unquote reads one word as claudecode.ShellQuote writes it — bare, or in
// single quotes where a quote is closed, escaped and reopened — and
// returns it and what follows.
func unquote(s string) (word, rest string, ok bool) {
	if !strings.HasPrefix(s, "'") {
		i := strings.IndexByte(s, ' ')
		if i <= 0 {
			return "", "", false
		}
		return s[:i], s[i:], true
	}
	var b strings.Builder
	for {
		s = s[1:] // the opening quote
		end := strings.IndexByte(s, '\'')
		if end < 0 {
			return "", "", false
		}
		b.WriteString(s[:end])
		s = s[end+1:]
		if !strings.HasPrefix(s, `\''`) {
			return b.String(), s, true
		}
		b.WriteByte('\'')
		s = s[2:] // now at the quote that reopens
	}
}
