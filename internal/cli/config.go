package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var configCmd = &command{
	name:    "config",
	usage:   "config [--json]",
	summary: "print the effective configuration, with where each value comes from",
	group:   groupSetup,
	long: `Prints the user and project config file paths, then every setting: key, where its value comes
from (default, user FILE, project FILE, env VARIABLE) and the effective value, last so that a
long list does not widen the table. The settings are explained in docs/CONFIG.md. To change the
client's own auto-compaction threshold, see ` + "`ctxkeep config set`" + `.`,
	examples: []string{"ctxkeep config", "ctxkeep config --json"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &configOptions{}
		fs.BoolVar(&o.json, "json", false, "print the files and values as JSON")
		return o.run
	},
}

type configOptions struct{ json bool }

// configReport is `ctxkeep config --json`.
type configReport struct {
	Files  config.Files   `json:"files"`
	Values []config.Value `json:"values"`
}

func (o *configOptions) run(_ context.Context, a *app, pos []string) error {
	if len(pos) > 0 {
		return usageErrorf("unknown config subcommand %q", pos[0]).withHint("`ctxkeep config` prints the configuration; `ctxkeep config set autocompact PCT` sets the client's threshold")
	}
	_, values, err := a.config()
	if err != nil {
		return err
	}
	r := configReport{Files: a.configFiles(), Values: orEmpty(values)}
	if o.json {
		return a.printJSON(r)
	}
	fmt.Fprintf(a.Stdout, "user config:    %s\nproject config: %s\n\n", r.Files.User, r.Files.Project)
	// The value comes last: a long list would otherwise pad every line.
	tw := a.table("KEY\tFROM\tVALUE")
	for _, v := range r.Values {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Key, v.Source, shownValue(v))
	}
	return tw.Flush()
}

// shownValue is a setting's value as the table shows it: a size in the
// units every command writes sizes in (text.Bytes: 250.0 MB), with the
// value as written beside it when that is another unit ("16.8 MB
// (16MiB)"); --json keeps the value as written.
func shownValue(v config.Value) string {
	n, ok := config.Size(v)
	if !ok {
		return v.Value
	}
	shown := text.Bytes(n)
	if strings.ReplaceAll(strings.ReplaceAll(shown, " ", ""), ".0", "") != v.Value {
		shown += " (" + v.Value + ")"
	}
	return shown
}
