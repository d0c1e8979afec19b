package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// minAutocompact is the lowest CLAUDE_AUTOCOMPACT_PCT_OVERRIDE set without
// --force. The client compacts at PCT% of the effective window (window −
// 20k), checked before every request, so a low value compacts sessions
// that have barely started: at 10% of a 200k window that is 18k tokens,
// about what the system prompt and tools take, and every request would
// compact. Half the window leaves room for real work between compactions.
const minAutocompact = 50

var configSetCmd = &command{
	name:    "config set",
	usage:   "config set autocompact PCT|off [--user | --project | --local] [--dry-run] [--force]",
	summary: "set the client's auto-compaction threshold (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE)",
	group:   groupSetup,
	long: `Writes CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=PCT into the "env" of a Claude Code settings file (the
user's by default; same scopes, backup and --dry-run diff as ` + "`ctxkeep install`" + `); off removes it.
PCT is a percentage of the effective window (the window less 20k). The client only lowers its
threshold: it compacts at the lower of PCT% and its default (the effective window less 13k,
about 93%), so a higher PCT changes nothing, and the command says so. It prints what the
threshold becomes for a 200k and a 1M window.

PCT below 50 is refused without --force: compaction would come after little work, and below
about 10% (the system prompt and tools) before every request. It applies to sessions started
from then on.`,
	examples: []string{
		"ctxkeep config set autocompact 80",
		"ctxkeep config set autocompact 70 --project --dry-run",
		"ctxkeep config set autocompact off",
	},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &configSetOptions{}
		o.scopes.register(fs)
		fs.BoolVar(&o.dryRun, "dry-run", false, "print the change to the settings file, change nothing")
		fs.BoolVar(&o.force, "force", false, fmt.Sprintf("set a PCT below %d anyway", minAutocompact))
		return o.run
	},
}

type configSetOptions struct {
	scopes        scopeFlags
	dryRun, force bool
}

func (o *configSetOptions) run(_ context.Context, a *app, pos []string) error {
	switch {
	case len(pos) == 0:
		return usageErrorf("config set needs what to set: `config set autocompact PCT|off`").
			withHint("PCT is a percentage of the effective window, %d to 100, or `off` to remove the override", minAutocompact)
	case len(pos) == 1 && pos[0] == "autocompact":
		return usageErrorf("config set autocompact needs a value: PCT or off").
			withHint("PCT is a percentage of the effective window, %d to 100, or `off` to remove the override", minAutocompact)
	case len(pos) >= 1 && pos[0] != "autocompact":
		return usageErrorf("config set sets autocompact only, not %q", pos[0]).
			withHint("the other settings go in %s (or CTXKEEP_<SECTION>_<KEY>): `ctxkeep config` lists them", a.configFiles().User)
	}
	if len(pos) != 2 {
		return usageErrorf("want `config set autocompact PCT`, got %q", strings.Join(pos, " ")).
			withHint("PCT is a percentage of the effective window, %d to 100, or `off` to remove the override", minAutocompact)
	}
	value, err := autocompactValue(pos[1], o.force)
	if err != nil {
		return err
	}
	scope, err := o.scopes.scope()
	if err != nil {
		return err
	}
	path := a.settingsPath(scope)
	res, err := claudecode.ApplyFile(path, func(b []byte) ([]byte, bool, error) {
		return claudecode.SetEnv(b, watch.EnvPctOverride, value)
	}, claudecode.ApplyOptions{DryRun: o.dryRun, Now: a.Now()})
	if err != nil {
		return malformedHint(err, path)
	}
	if o.dryRun {
		return a.printDryRun(res, "change")
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(a.Stdout, "%s is already as asked\n", path)
	case value == "":
		fmt.Fprintf(a.Stdout, "removed %s from %s (%s settings): the client compacts at its default threshold\n", watch.EnvPctOverride, path, scope)
	default:
		fmt.Fprintf(a.Stdout, "set %s=%s in %s (%s settings)\n", watch.EnvPctOverride, value, path, scope)
	}
	if res.Backup != "" {
		fmt.Fprintf(a.Stdout, "backup of the previous settings: %s\n", res.Backup)
	}
	if value != "" {
		pct, _ := strconv.ParseFloat(value, 64)
		explainOverride(a, pct)
	}
	fmt.Fprintln(a.Stdout, "it applies to sessions started from now on")
	return nil
}

// autocompactValue checks PCT: a number in [minAutocompact, 100] (above 0
// with force), or off.
func autocompactValue(s string, force bool) (string, error) {
	switch strings.ToLower(s) {
	case "off", "default", "none":
		return "", nil
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || pct <= 0 || pct > 100 {
		return "", usageErrorf("autocompact: want a percentage from %d to 100, or off; got %q", minAutocompact, s)
	}
	if pct < minAutocompact && !force {
		at := watch.Compute(200_000, watch.ClientEnv{PctOverride: pct})
		return "", usageErrorf("autocompact %s is below %d%%: the client would compact a 200k-token session at %s tokens, after little work (below about 10%%, the system prompt and tools alone, before every request)",
			s, minAutocompact, watch.Thousands(at.AutoCompact)).withHint("use %d to 100, or --force to set it anyway", minAutocompact)
	}
	return strconv.FormatFloat(pct, 'f', -1, 64), nil
}

// explainOverride says what the override does for the usual windows: the
// client takes the lower of PCT% of the effective window and its default
// threshold, so it can only bring compaction earlier.
func explainOverride(a *app, pct float64) {
	fmt.Fprintln(a.Stdout, "the client only lowers its threshold: it compacts at the lower of PCT% of the effective window (window − 20k) and its default (effective − 13k):")
	for _, window := range []int64{200_000, 1_000_000} {
		def := watch.Compute(window, watch.ClientEnv{})
		with := watch.Compute(window, watch.ClientEnv{PctOverride: pct})
		note := ""
		if with.AutoCompact == def.AutoCompact {
			note = fmt.Sprintf(" (no change: above %.1f%%, the default wins)", 100*float64(def.AutoCompact)/float64(def.Effective))
		}
		fmt.Fprintf(a.Stdout, "  %s window: auto-compaction at %s instead of %s%s\n",
			watch.Short(window), watch.Thousands(with.AutoCompact), watch.Thousands(def.AutoCompact), note)
	}
}
