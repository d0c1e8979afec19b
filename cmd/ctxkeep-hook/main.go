// Command ctxkeep-hook is the part of ctxkeep the agent waits for: Claude
// Code and Codex run `ctxkeep-hook hook` on every hook event, the wrapper
// `ctxkeep-hook capture` after a wrapped command, Claude Code
// `ctxkeep-hook statusline` on every redraw of its statusline. It is the composition
// root of an executable that links only what hooks use — no MCP SDK, no
// PostgreSQL driver, no tokenizer — so that each of the two hook calls of
// every tool call starts as fast as a small Go program can.
// `ctxkeep install` registers it when it lies beside ctxkeep; `ctxkeep
// hook` runs the same code.
package main

import (
	"os"
	"slices"
	"time"

	"github.com/ctxkeep/ctxkeep/cmd/internal/backends"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/hook"
	"github.com/ctxkeep/ctxkeep/internal/statusline"
)

func main() {
	start := time.Now()
	env := app.Env{Getenv: os.Getenv, Environ: os.Environ(), Getwd: os.Getwd, Now: time.Now, Backends: backends.Local()}
	if args := os.Args[1:]; len(args) > 0 && args[0] == "statusline" {
		// The client's statusLine, redrawn every few hundred milliseconds;
		// without the tokenizer, it shows no estimate before the first
		// response (`ctxkeep statusline` does).
		hook.PrivateFiles()
		os.Exit(statusline.Run(env, slices.Contains(args[1:], "--plain"), os.Stdin, os.Stdout, nil))
	}
	os.Exit(hook.Command(start, os.Args[1:], env, os.Stdin, os.Stdout, os.Stderr))
}
