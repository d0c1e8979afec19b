package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/ctxkeep/ctxkeep/internal/config"
)

type configReport struct {
	Files  config.Files   `json:"files"`
	Values []config.Value `json:"values"`
}

func runConfig(ctx context.Context, a *app, args []string) error {
	if len(args) > 0 && args[0] == "set" {
		return runConfigSet(ctx, a, args[1:])
	}
	var asJSON bool
	fs := a.flags("config")
	fs.BoolVar(&asJSON, "json", false, "print the values as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	files := a.configFiles()
	_, values, err := a.config()
	if err != nil {
		return hint(err, "edit the file named above, or unset the variable")
	}
	if asJSON {
		return a.printJSON(configReport{Files: files, Values: values})
	}
	fmt.Fprintf(a.Stdout, "user config:    %s\nproject config: %s\n\n", files.User, files.Project)
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	// The value comes last: a long list would otherwise pad every line.
	fmt.Fprintln(tw, "KEY\tFROM\tVALUE")
	for _, v := range values {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Key, v.Source, v.Value)
	}
	return tw.Flush()
}
