package cli

import (
	"context"
	"flag"
	"strconv"

	"github.com/ctxkeep/ctxkeep/internal/hook"
)

var captureCmd = &command{
	name:    "capture",
	usage:   "capture SPOOL RC",
	summary: "store a wrapped command's output and print its view",
	group:   groupClient,
	long: `Run by the wrapper (docs/SWAP.md) inside the agent's Bash tool, not by people: it stores the
output the wrapped command left in SPOOL.out, prints it (small) or its view (large), removes the
spool files, and exits 0. RC is the command's exit status. On any problem it prints the output
as it is: the agent always gets its output. A SPOOL outside ctxkeep's spool folder is only
printed, never stored or removed, and SPOOL.out is never read through a symbolic link
(docs/SECURITY.md).`,
	raw: true, // the wrapper's arguments are never flags
	setup: func(*flag.FlagSet) runFunc {
		return func(_ context.Context, a *app, args []string) error {
			if len(args) != 2 {
				return usageErrorf("capture takes SPOOL and RC, got %d argument(s)", len(args)).withHint("it is run by ctxkeep's wrapper, not by hand; see `ctxkeep help capture`")
			}
			rc, err := strconv.Atoi(args[1])
			if err != nil {
				rc = -1 // unknown: the output still goes through
			}
			hook.IgnoreSIGPIPE() // a reader that went away must not turn the command's status into 141
			hook.Capture(a.hookEnv(), args[0], rc, a.Stdout)
			return nil
		}
	},
}
