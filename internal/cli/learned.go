package cli

import (
	"context"
	"flag"
	"fmt"
	"sort"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/learned"
)

var learnedCmd = &command{
	name:    "learned",
	usage:   "learned [--project] [--forget PATTERN] [--json]",
	summary: "review or forget the commands learned to print a lot",
	group:   groupOutputs,
	long: `Lists the commands ctxkeep learned print a lot, per project: pattern, times seen, largest output,
last seen. The wrapper runs them, so that their whole output is kept even when they fail (the
client does not let a hook replace a failed command's output). --forget PATTERN drops a
pattern, in every project or, with --project, in this one only.`,
	examples: []string{"ctxkeep learned", `ctxkeep learned --forget "mix test" --project`},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &learnedOptions{}
		fs.BoolVar(&o.project, "project", false, "only this project's commands")
		fs.StringVar(&o.forget, "forget", "", "forget the command `PATTERN` (e.g. \"mix test\"); with --project, only here")
		fs.BoolVar(&o.json, "json", false, "print the list as JSON")
		return o.run
	},
}

type learnedOptions struct {
	project, json bool
	forget        string
}

func (o *learnedOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("learned", pos); err != nil {
		return err
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	project := ""
	if o.project {
		project = a.projectDir()
	}
	// What the hooks journalled since the end of the last turn is learned
	// first (internal/app.Ingest).
	if st, err := a.storeIfAny(ctx); err == nil {
		a.root.Ingest(ctx, st, "")
	}
	if o.forget != "" {
		n, err := learned.Forget(d.Learned(), project, o.forget)
		if err != nil {
			return err
		}
		if n == 0 {
			return hint(ctxkeep.Errorf(ctxkeep.ErrNotFound, "no learned command %q", o.forget), "run `ctxkeep learned` to see them")
		}
		if o.json {
			return a.printJSON(map[string]any{"forgot": o.forget, "projects": n})
		}
		fmt.Fprintf(a.Stdout, "forgot %q (%d project(s))\n", o.forget, n)
		return nil
	}
	f, err := learned.Load(d.Learned())
	if err != nil {
		return err
	}
	if project != "" {
		f.Projects = map[string][]learned.Command{project: f.Projects[project]}
	}
	if o.json {
		for p, cmds := range f.Projects {
			f.Projects[p] = orEmpty(cmds)
		}
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
	tw := a.table("PROJECT\tCOMMAND\tTIMES\tLARGEST\tLAST")
	for _, p := range projects {
		for _, c := range f.Projects[p] {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d chars\t%s\n", p, printable(c.Pattern), c.Hits, c.MaxChars, c.Last.Local().Format("2006-01-02 15:04"))
		}
	}
	tw.Flush()
	a.tip("these run through the wrapper, which keeps their whole output even when they fail; `ctxkeep learned --forget PATTERN` to stop")
	return nil
}
