// Package cli is ctxkeep's composition root: it parses the command line,
// resolves folders and config, opens the stores a command needs, and turns
// errors into messages and exit codes. Commands are an options struct and a
// run function each; rendering is either for people or, with --json, a
// stable document for programs (docs/CLI_JSON_OUTPUT.md).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	ctxapp "github.com/ctxkeep/ctxkeep/internal/app"

	"github.com/ctxkeep/ctxkeep/internal/hook"
)

// Exit codes (docs/CLI.md).
const (
	exitOK      = 0
	exitError   = 1 // the command failed, or doctor found a problem
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
}

// System is the real process.
func System(args []string) Process {
	return Process{
		Args: args, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Environ: os.Environ(), Getwd: os.Getwd,
		Executable: os.Executable, Now: time.Now,
	}
}

// Main runs one command and returns the exit code.
func Main(start time.Time, p Process) int {
	privateFiles()
	// The hook path comes first and alone: nothing else is initialised
	// for the call the agent pays for on every event.
	if len(p.Args) > 0 && p.Args[0] == "hook" {
		ignoreSIGPIPE()
		return hook.MainAgent(start, hookAgent(p.Args[1:]), p.hookEnv(), p.Stdin, p.Stdout)
	}
	if len(p.Args) == 3 && p.Args[0] == "capture" { // run by the wrapper, inside the agent's Bash
		ignoreSIGPIPE()
		rc, err := strconv.Atoi(p.Args[2])
		if err != nil {
			rc = -1
		}
		return hook.Capture(p.hookEnv(), p.Args[1], rc, p.Stdout)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := dispatch(ctx, &app{Process: p}, p.Args)
	return report(p.Stderr, err)
}

// hookAgent reads the client from the hook's command line: `hook --agent
// codex` (or --agent=codex), "" for plain `hook` (Claude Code). No flag
// package: this is the hot path.
func hookAgent(args []string) string {
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

func (p Process) hookEnv() ctxapp.Env {
	return ctxapp.Env{Getenv: p.Getenv, Environ: p.Environ, Getwd: p.Getwd, Now: p.Now}
}

func dispatch(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		printHelp(a.Stdout)
		return nil
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd := lookup(name)
	if cmd == nil {
		return usageErrorf("unknown command %q", args[0]).withHint("run `ctxkeep help` for the list of commands")
	}
	defer a.close()
	return cmd.run(ctx, a, args[1:])
}

// report prints an error the way every command does and picks the exit code.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "ctxkeep: interrupted")
		return exitAborted
	}
	var silent silentError
	if errors.As(err, &silent) {
		return silent.code
	}
	fmt.Fprintf(stderr, "ctxkeep: error: %s\n", strings.TrimSpace(err.Error()))
	var h *hintedError
	if !errors.As(err, &h) {
		return exitError
	}
	if h.hint != "" {
		fmt.Fprintf(stderr, "ctxkeep: hint: %s\n", h.hint)
	}
	if h.usage {
		return exitUsage
	}
	return exitError
}

// hintedError carries a hint for the user and whether it is a usage error.
type hintedError struct {
	err   error
	hint  string
	usage bool
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }

func (e *hintedError) withHint(format string, args ...any) *hintedError {
	e.hint = fmt.Sprintf(format, args...)
	return e
}

func usageErrorf(format string, args ...any) *hintedError {
	return &hintedError{err: fmt.Errorf(format, args...), usage: true}
}

func hint(err error, format string, args ...any) error {
	return (&hintedError{err: err}).withHint(format, args...)
}

// silentError ends a command with a code after it has already said why
// (doctor reports its findings itself).
type silentError struct{ code int }

func (e silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
