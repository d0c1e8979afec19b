package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/excerpt"
)

var showCmd = &command{
	name:    "show",
	usage:   "show ID [--lines A:B | --grep RE [-C N] | --head N [--tail N] | --failures | --info]",
	summary: "print a stored tool output, or part of it, exactly",
	group:   groupOutputs,
	long: `Prints the output ctxkeep stored in place of a tool's result, byte for byte, after checking it
against its SHA-256: a damaged copy is an error, never printed. ID is the entry id the view
named (` + "`ctxkeep list`" + ` shows them), or a unique prefix of one.

One way of narrowing at a time: --lines, --grep (with -C), --head and --tail (together: the
first N lines, then the last M of those), --failures. Every count must be positive, so that a
typo never prints a whole 200 kB output.

A print counts as a retrieval (the re-fetch rate of ` + "`ctxkeep stats`" + `, and a retrieved output is
kept longer) only when the agent runs it: Claude Code's Bash tool sets AI_AGENT=…_agent.`,
	examples: []string{
		"ctxkeep show 15c192b60fee --failures",
		"ctxkeep show 15c1 --grep 'FAIL|panic' -C 3",
		"ctxkeep show 15c192b60fee --lines 120:180",
		"ctxkeep show 15c192b60fee --tail 40",
	},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &showOptions{}
		o.narrow.register(fs)
		fs.BoolVar(&o.failures, "failures", false, "print every failure with the lines that give its cause, numbered (N:line; -C N adds context)")
		fs.BoolVar(&o.info, "info", false, "print what is known of the entry, as JSON, instead of its content")
		return o.run
	},
}

type showOptions struct {
	narrow   narrowOptions
	failures bool
	info     bool
}

func (o *showOptions) validate(pos []string) error {
	if len(pos) != 1 {
		return usageErrorf("show takes one entry id, got %d arguments", len(pos)).withHint("run `ctxkeep list` to see the ids")
	}
	ways := o.excerpt().Ways()
	if o.info {
		ways = append(ways, "--info")
	}
	if len(ways) > 1 {
		return usageErrorf("choose one of %s", strings.Join(ways, ", "))
	}
	return usage(o.excerpt().Validate())
}

// excerpt is the part of the output asked for.
func (o *showOptions) excerpt() excerpt.Options {
	x := o.narrow.excerpt()
	x.Failures = o.failures
	return x
}

func (o *showOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := o.validate(pos); err != nil {
		return err
	}
	st, err := a.storeIfAny(ctx)
	if err != nil {
		return err
	}
	e, err := a.entryByID(ctx, st, pos[0])
	if err != nil {
		return err
	}
	if o.info {
		return a.printJSON(printableEntry(e))
	}
	data, err := st.Open(ctx, e.Hash)
	if errors.Is(err, ctxkeep.ErrCorrupt) {
		return hint(err, "the stored copy of %s is damaged and will not be shown; `ctxkeep check --repair` writes it again from a readable copy if one is left", e.ID)
	}
	if err != nil {
		return err
	}
	if err := usage(o.excerpt().Write(a.Stdout, data)); err != nil || !a.byAgent() {
		return err
	}
	return st.Touch(ctx, e.ID, a.Now()) // only what the agent printed counts as retrieved
}

// byAgent reports whether the command runs in the agent's Bash tool:
// Claude Code sets AI_AGENT=claude-code_<version>_agent there (and
// CLAUDECODE=1, which older clients set alone). A person's own `show` in a
// terminal is not a re-fetch by the model.
func (a *app) byAgent() bool {
	agent := a.Getenv("AI_AGENT")
	return strings.HasSuffix(agent, "_agent") || agent == "" && a.Getenv("CLAUDECODE") == "1"
}

// entryByID finds a stored output by its id or a unique prefix. A prefix
// several ids start with names them (up to five), so that the user can
// pick one.
func (a *app) entryByID(ctx context.Context, st ctxkeep.Local, id string) (ctxkeep.Entry, error) {
	e, err := st.Entry(ctx, id)
	switch {
	case errors.Is(err, ctxkeep.ErrAmbiguous):
		return e, a.ambiguousEntry(ctx, st, id, err)
	case errors.Is(err, ctxkeep.ErrNotFound):
		return e, hint(err, "run `ctxkeep list --all` to see the stored outputs")
	}
	return e, err
}

func (a *app) ambiguousEntry(ctx context.Context, st ctxkeep.Local, id string, err error) error {
	es, lerr := st.Entries(ctx, ctxkeep.EntryFilter{Latest: true})
	if lerr != nil {
		return hint(err, "give more of the id; `ctxkeep list --all` lists them")
	}
	prefix := strings.ToLower(strings.TrimSpace(id))
	var shown []string
	n := 0
	for _, e := range es {
		if !strings.HasPrefix(e.ID, prefix) {
			continue
		}
		if n++; n <= 5 {
			shown = append(shown, fmt.Sprintf("%s (%s %s)", e.ID, e.Tool, callCell(e.Input, 40)))
		}
	}
	if n > len(shown) {
		shown = append(shown, fmt.Sprintf("and %d more", n-len(shown)))
	}
	return hint(ctxkeep.Errorf(ctxkeep.ErrAmbiguous, "%q starts %d stored outputs' ids: %s", prefix, n, strings.Join(shown, ", ")), "give more of the id")
}
