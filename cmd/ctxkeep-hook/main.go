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
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
		// The client's statusLine, redrawn every few hundred milliseconds.
		hook.PrivateFiles()
		os.Exit(statusline.Run(env, slices.Contains(args[1:], "--plain"), os.Stdin, os.Stdout, estimateByCtxkeep))
	}
	os.Exit(hook.Command(start, os.Args[1:], env, os.Stdin, os.Stdout, os.Stderr))
}

// estimateByCtxkeep asks ctxkeep, installed beside this executable, for
// the estimate the statusline shows before a session's first response:
// the tokenizer is linked there, not here, and this is needed only until
// the client records usage, once per transcript size.
func estimateByCtxkeep(transcriptPath string) (int64, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(self), "ctxkeep"), "statusline", "--estimate", transcriptPath)
	out, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
}
