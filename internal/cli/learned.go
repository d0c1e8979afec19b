package cli

import (
	"context"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/ctxkeep/ctxkeep/internal/learned"
)

// runLearned lists the commands learned to print a lot (the wrapper
// captures them whole) and forgets the ones the user names.
func runLearned(ctx context.Context, a *app, args []string) error {
	var projectOnly, asJSON bool
	var forget string
	fs := a.flags("learned")
	fs.BoolVar(&projectOnly, "project", false, "only this project's commands")
	fs.StringVar(&forget, "forget", "", "forget the command `PATTERN` (e.g. \"mix test\"); with --project, only here")
	fs.BoolVar(&asJSON, "json", false, "print the list as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	project := ""
	if projectOnly {
		project = a.projectDir()
	}
	// What the hooks journalled since the end of the last turn is learned
	// first (internal/app.Ingest).
	if st, err := a.openStore(ctx); err == nil {
		a.root.Ingest(ctx, st, "")
	}
	if forget != "" {
		n, err := learned.Forget(d.Learned(), project, forget)
		if err != nil {
			return err
		}
		if n == 0 {
			return hint(fmt.Errorf("no learned command %q", forget), "run `ctxkeep learned` to see them")
		}
		fmt.Fprintf(a.Stdout, "forgot %q (%d project(s))\n", forget, n)
		return nil
	}
	f, err := learned.Load(d.Learned())
	if err != nil {
		return err
	}
	if project != "" {
		f.Projects = map[string][]learned.Command{project: f.Projects[project]}
	}
	if asJSON {
		return a.printJSON(f)
	}
	var projects []string
	for p, cmds := range f.Projects {
		if len(cmds) > 0 {
			projects = append(projects, p)
		}
	}
	if len(projects) == 0 {
		fmt.Fprintln(a.Stdout, "no commands learned yet")
		return nil
	}
	sort.Strings(projects)
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tCOMMAND\tTIMES\tLARGEST\tLAST")
	for _, p := range projects {
		for _, c := range f.Projects[p] {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d chars\t%s\n", p, c.Pattern, c.Hits, c.MaxChars, c.Last.Local().Format("2006-01-02 15:04"))
		}
	}
	tw.Flush()
	fmt.Fprintln(a.Stdout, "\nthese run through the wrapper, which keeps their whole output even when they fail; `ctxkeep learned --forget PATTERN` to stop")
	return nil
}
