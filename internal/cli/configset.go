package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// runConfigSet sets one of the client's own settings that ctxkeep knows
// about. Today that is the auto-compaction threshold:
//
//	ctxkeep config set autocompact PCT|off [--user | --project | --local] [--dry-run]
//
// which writes CLAUDE_AUTOCOMPACT_PCT_OVERRIDE into the settings' "env".
func runConfigSet(_ context.Context, a *app, args []string) error {
	var scopes scopeFlags
	var dryRun bool
	fs := a.flags("config")
	scopes.register(fs)
	fs.BoolVar(&dryRun, "dry-run", false, "print the change to the settings file, change nothing")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "autocompact" {
		return usageErrorf("want `config set autocompact PCT`, got %q", strings.Join(pos, " ")).
			withHint("PCT is a percentage of the effective window, 1 to 100, or `off` to remove the override")
	}
	value, err := autocompactValue(pos[1])
	if err != nil {
		return err
	}
	scope, err := scopes.scope()
	if err != nil {
		return err
	}
	path := a.settingsPath(scope)
	res, err := claudecode.ApplyFile(path, func(b []byte) ([]byte, bool, error) {
		return claudecode.SetEnv(b, watch.EnvPctOverride, value)
	}, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	if err != nil {
		return malformedHint(err, path)
	}
	if dryRun {
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

// autocompactValue checks PCT: a number in (0, 100], or off.
func autocompactValue(s string) (string, error) {
	switch strings.ToLower(s) {
	case "off", "default", "none":
		return "", nil
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || pct <= 0 || pct > 100 {
		return "", usageErrorf("autocompact: want a percentage above 0 and at most 100, or off; got %q", s)
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
