package swap

import (
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

// The wrapper runs a command so that its whole output is kept even when it
// fails: the client cannot replace a failed Bash result and cuts it to
// about 10,000 characters without saving it (claude-code-hooks.md §6).
//
//	eval '<command>' > <spool>.out 2>&1; __ctxkeep_rc=$?; <ctxkeep> capture <spool> "$__ctxkeep_rc"; (exit "$__ctxkeep_rc")
//
// The command is one single-quoted word given to eval, so no text in it —
// a trailing backslash, a heredoc, an unbalanced quote, a comment, a
// brace — can change how the wrapper around it is read: eval parses it as
// the shell would have, and runs it in the current shell, so a `cd` in it
// still holds afterwards (§4.3). A command with a syntax error fails
// inside eval as it would alone (status 2, the shell's message). `ctxkeep
// capture` stores the output and prints it, or its view when it is large;
// the last subshell gives the command's own exit status back to the
// client.

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
// would alone. Not so for a command that may end the shell before capture
// runs (exit, exec, logout, set -e: its output would stay in the spool),
// one that sets a shell option the wrapper's own lines would feel (set -x
// traces them), one that leaves a job running in the background (it would
// write into a spool already removed), one that eval would read as an
// option (a leading '-'), and one with a NUL byte (no shell word can hold
// it). The
// check is on words, not a parse, so it refuses a few commands that would
// have been fine (`echo exit`); those run unwrapped, as without ctxkeep.
func Wrappable(command string) bool {
	if strings.HasPrefix(command, "-") || strings.IndexByte(command, 0) >= 0 || backgrounds(command) {
		return false
	}
	words := shellTokens(command)
	for i, w := range words {
		switch w {
		case "exit", "exec", "logout":
			return false
		case "set":
			if i+1 < len(words) && setsRiskyOption(words[i+1:]) {
				return false
			}
		}
	}
	return true
}

// backgrounds reports whether a command has a lone '&' (a job sent to the
// background), as opposed to &&, >&, <&, &> and |&.
func backgrounds(command string) bool {
	for i := 0; i < len(command); i++ {
		if command[i] != '&' {
			continue
		}
		prev, next := byte(0), byte(0)
		if i > 0 {
			prev = command[i-1]
		}
		if i+1 < len(command) {
			next = command[i+1]
		}
		if next == '&' {
			i++ // && as a pair
			continue
		}
		if prev == '>' || prev == '<' || prev == '|' || next == '>' {
			continue
		}
		return true
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

// shellTokens splits a command into runs of word characters, so that
// `a;exit 1` and `(exit)` show the word exit. Quotes are not understood:
// a quoted "exit" counts too, which only errs on the safe side.
func shellTokens(command string) []string {
	return strings.FieldsFunc(command, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_+./=", r))
	})
}

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
