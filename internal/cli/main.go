// Package cli is ctxkeep's command line: it parses the arguments, gets
// what a command needs from the composition root (internal/app), and turns
// results and errors into output and exit codes.
//
// Each command is an options struct with its flags and a run method
// (GitHub CLI's pattern): run validates the options, computes a result,
// then renders it for people (tables and hints only on a terminal) or,
// with --json, as a stable document (docs/CLI.md). Errors follow the same
// split: a message and a hint on stderr, or a JSON error object on stdout.
package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"slices"
	"time"

	ctxapp "github.com/ctxkeep/ctxkeep/internal/app"

	"github.com/ctxkeep/ctxkeep/internal/hook"
)

// Exit codes (docs/CLI.md).
const (
	exitOK      = 0
	exitError   = 1 // the command failed, or doctor or check found a problem
	exitUsage   = 2 // bad command line
	exitAborted = 130
)

// Process is everything a run takes from the operating system, so tests
// can run the CLI in-process.
type Process struct {
	Args       []string
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	Getenv     func(string) string
	Environ    []string
	Getwd      func() (string, error)
	Executable func() (string, error)
	Now        func() time.Time
	// Backends build the concrete adapters: the composition root
	// (cmd/ctxkeep) gives them.
	Backends ctxapp.Backends
	// StdoutTTY and StderrTTY say whether stdout and stderr are terminals:
	// table headers and closing hints are only printed to a terminal,
	// progress only drawn on one.
	StdoutTTY, StderrTTY bool
}

// System is the real process.
func System(args []string) Process {
	return Process{
		Args: args, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Environ: os.Environ(), Getwd: os.Getwd,
		Executable: os.Executable, Now: time.Now,
		StdoutTTY: isTerminal(os.Stdout), StderrTTY: isTerminal(os.Stderr),
	}
}

// isTerminal reports whether f is a character device: a terminal (or
// /dev/null, where what is drawn goes nowhere anyway). golang.org/x/term
// would ask the terminal itself, at the cost of a dependency.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Main runs one command and returns the exit code.
func Main(start time.Time, p Process) int {
	hook.PrivateFiles()
	// The hook path comes first and alone: nothing else is initialised
	// for the call the agent pays for on every event. Only a request for
	// help is told apart, so that it never runs the hook on empty stdin.
	if len(p.Args) > 0 && p.Args[0] == "hook" {
		if len(p.Args) > 1 && slices.ContainsFunc(p.Args[1:], isHelpFlag) {
			printCommandHelp(p.Stdout, lookup("hook"))
			return exitOK
		}
		return hook.Command(start, p.Args, p.hookEnv(), p.Stdin, p.Stdout, p.Stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	a := &app{Process: p, jsonOut: wantsJSON(p.Args)}
	defer a.close()
	return a.report(dispatch(ctx, a, p.Args))
}

func (p Process) hookEnv() ctxapp.Env {
	return ctxapp.Env{Getenv: p.Getenv, Environ: p.Environ, Getwd: p.Getwd, Now: p.Now, Backends: p.Backends}
}

// dispatch finds the command and runs it.
func dispatch(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		printHelp(a.Stderr)
		return silentError{code: exitUsage}
	}
	name := args[0]
	switch {
	case isHelpFlag(name):
		name = "help"
	case name == "-version" || name == "--version":
		name = "version"
	}
	cmd := lookup(name)
	if cmd == nil {
		return unknownCommand(args[0])
	}
	args = args[1:]
	if cmd.name == "config" && len(args) > 0 && args[0] == "set" {
		cmd, args = lookup("config set"), args[1:]
	}
	return cmd.execute(ctx, a, args)
}

// wantsJSON reports whether the command line asks for --json, so that even
// an error in parsing it is reported as a JSON object.
func wantsJSON(args []string) bool {
	for _, arg := range args {
		switch arg {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true":
			return true
		}
	}
	return false
}

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help":
		return true
	}
	return false
}
