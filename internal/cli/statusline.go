package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/statusline"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var statuslineCmd = &command{
	name:    "statusline",
	usage:   "statusline [--plain] [--estimate TRANSCRIPT]",
	summary: "draw the client's statusline: context used, distance to auto-compaction",
	group:   groupClient,
	long: `What the client runs as its statusLine (set it up with ` + "`ctxkeep install --statusline`" + `): reads the
statusLine JSON from stdin and prints one line, e.g.

  ▰▰▰▰▱▱▱▱▱▱ 39% 77.4k/200k · auto-compact in 89.6k · kept out ~12k (7)

— context used of the window (the client's reported window when it gives one), the distance to
auto-compaction, what swap kept out of this session as the transcript shows it: the replacements
the client applied and the outputs the wrapper printed, with the ones not checked yet (checked at
the end of each turn) and not applied named apart, "kept out ~12k (5; 2 unchecked, 1 not
applied)". Green, then yellow from the first warning level, red from the last (--plain or
NO_COLOR for none). Before any usage is recorded it shows
an estimate, marked ~… (estimate); a window inferred from a context larger than the configured
one is marked (window inferred). It reads the transcript from a saved cursor, so a call costs
the same on any transcript size, and it always exits 0: a problem is printed as the line.

--estimate TRANSCRIPT prints that estimate alone, in tokens: what ctxkeep-hook (which install
registers, and which links no tokenizer) asks ctxkeep for before a session's first response.`,
	examples: []string{`echo '{"session_id":"…","transcript_path":"…"}' | ctxkeep statusline --plain`},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &statuslineOptions{}
		fs.BoolVar(&o.plain, "plain", false, "no colours (also NO_COLOR)")
		fs.StringVar(&o.estimate, "estimate", "", "print the token estimate of `TRANSCRIPT` before its first response, and exit")
		return o.run
	},
}

type statuslineOptions struct {
	plain    bool
	estimate string
}

// run draws the client's statusline from its stdin JSON. It always exits
// 0 and prints one line: a statusline that fails shows nothing, which
// helps nobody.
func (o *statuslineOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("statusline", pos); err != nil {
		return err
	}
	if o.estimate != "" {
		n, err := estimate(o.estimate)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.Stdout, n)
		return nil
	}
	statusline.Run(a.hookEnv(), o.plain, a.Stdin, a.Stdout, estimate)
	return nil
}

// estimate counts what the model would be sent from a transcript with the
// offline tokenizer and the client's safety margin.
func estimate(path string) (int64, error) {
	f, err := transcript.ReadFileLimited(path, transcript.Cursor{}, transcript.ReadLimits{Bytes: statusline.EstimateLimit, Line: statusline.EstimateLimit})
	if err != nil {
		return 0, err
	}
	live, _ := transcript.Live(f.Records)
	cats, _ := breakdown.Categorize(live, breakdown.Tokenizer())
	var n int64
	for _, c := range cats {
		n += c.Tokens
	}
	return breakdown.WithMargin(n), nil
}
