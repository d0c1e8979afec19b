// Command ctxkeep keeps an AI coding agent's context lean and its work
// safe through compaction. Claude Code runs `ctxkeep hook` on every hook
// event; people run the other commands. See `ctxkeep help`.
package main

import (
	"os"
	"time"

	"github.com/ctxkeep/ctxkeep/cmd/internal/backends"
	"github.com/ctxkeep/ctxkeep/cmd/internal/teamarchive"
	"github.com/ctxkeep/ctxkeep/internal/cli"
)

func main() {
	start := time.Now()
	p := cli.System(os.Args[1:])
	p.Backends = backends.Local()
	p.Backends.OpenTeam = teamarchive.Open
	os.Exit(cli.Main(start, p))
}
