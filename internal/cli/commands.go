package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one entry of the command table.
type command struct {
	name    string
	usage   string // the synopsis after "ctxkeep "
	summary string // one line for `ctxkeep help`
	run     func(ctx context.Context, a *app, args []string) error
}

var commands []*command

func init() {
	commands = []*command{
		{"install", "install [--user | --project | --local] [--dry-run] [--plugin DIR] [--statusline [--force]]", "register ctxkeep's hooks with Claude Code and prepare the store", runInstall},
		{"uninstall", "uninstall [--user | --project | --local] [--dry-run]", "remove ctxkeep's hooks from Claude Code's settings", runUninstall},
		{"doctor", "doctor [--json]", "check the binary, the hooks, the store and the log", runDoctor},
		{"replay", "replay [TRANSCRIPT.jsonl ... | --sample] [--views] [--json]", "measure what ctxkeep would have kept out of a recorded session (default: your latest)", runReplay},
		{"show", "show ID [--lines A:B | --grep RE [-C N] | --head N | --tail N | --failures | --info]", "print a stored tool output, or part of it, exactly", runShow},
		{"list", "list [--session ID | --all] [--json]", "list the tool outputs kept out of the context", runList},
		{"search", "search WORDS... [--session ID | --project | --all] [--limit N] [--json] | search --team WORDS... [--project NAME | --all]", "search everything said and run in archived sessions, exact outputs included", runSearch},
		{"recall", "recall KEY | SESSION:TURN[-TURN] [--json] | recall --team KEY", "print archived turns exactly, stored outputs put back in place", runRecall},
		{"archive", "archive [TRANSCRIPT.jsonl ...] [--all] [--json]", "add sessions to the archive (the hooks archive the ones they see)", runArchive},
		{"stats", "stats [--session ID] [--limit N] [--json]", "show what the hooks recorded, by session, event and tool", runStats},
		{"context", "context [SESSION] [--json] [--html FILE]", "show where a session's context went: by category, stale output, timeline (default: your latest)", runContext},
		{"statusline", "statusline [--plain]", "draw Claude Code's statusline: context used, distance to auto-compaction (stdin JSON); run by the client", runStatusline},
		{"config", "config [--json] | config set autocompact PCT|off [--user | --project | --local] [--dry-run]", "print the effective configuration, or set the client's auto-compaction threshold", runConfig},
		{"learned", "learned [--project] [--forget PATTERN] [--json]", "review or forget the commands learned to print a lot", runLearned},
		{"pin", "pin ID|last [--level none|soft|hard] [--reason R]", "keep a stored output: prune takes soft pins last and hard pins never", runPin},
		{"unpin", "unpin ID|last", "remove an output's pin", runUnpin},
		{"pins", "pins [--json]", "list the pinned outputs and the pins waiting for outputs", runPins},
		{"prune", "prune [--max-age D] [--max-size MB] [--gc-unreferenced] [--dry-run] [--json]", "remove stored outputs past their retention or over the size limit, and leftover files", runPrune},
		{"check", "check [--repair] [--json]", "verify the whole store (every blob's SHA-256, the index, full-text indexes); --repair fixes what it can", runCheck},
		{"optimize", "optimize [--json]", "compact the index: merge full-text indexes, checkpoint the WAL, vacuum", runOptimize},
		{"team", teamUsage, "the team archive on PostgreSQL: init, grant, add-project, sync, status (docs/TEAM.md)", runTeam},
		{"purge", "purge SESSION|--current [--analyze] [--dry-run] [--repair-only] [--threshold N] [--keep-thinking] [--force] [--json]", "repair a session's transcript and slim it (large results stored, thinking removed), with a backup", runPurge},
		{"hook", "hook", "handle one Claude Code hook event (stdin JSON → stdout JSON); run by the client", nil},
		{"capture", "capture SPOOL RC", "store a wrapped command's output and print its view; run by the wrapper", nil},
		{"version", "version", "print ctxkeep's version", runVersion},
		{"help", "help [COMMAND]", "show help for ctxkeep or one command", runHelp},
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name && c.run != nil {
			return c
		}
	}
	return nil
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `ctxkeep keeps Claude Code's context lean and its work safe through compaction.

Usage: ctxkeep COMMAND [FLAGS]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "ctxkeep help COMMAND" or "ctxkeep COMMAND -h" for a command's flags.
Environment: CTXKEEP_HOME (one folder for all data), CTXKEEP_DISABLE=1 (hooks pass through),
CTXKEEP_<SECTION>_<KEY> (override a setting, see "ctxkeep config").
`)
}

func runHelp(_ context.Context, a *app, args []string) error {
	if len(args) == 0 {
		printHelp(a.Stdout)
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			fmt.Fprintf(a.Stdout, "Usage: ctxkeep %s\n\n%s.\n", c.usage, upperFirst(c.summary))
			return nil
		}
	}
	return usageErrorf("unknown command %q", args[0]).withHint("run `ctxkeep help` for the list of commands")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// flags makes a command's flag set; errors and -h go to stderr.
func (a *app) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	fs.Usage = func() {
		for _, c := range commands {
			if c.name == name {
				fmt.Fprintf(a.Stderr, "Usage: ctxkeep %s\n\n%s.\n\nFlags:\n", c.usage, upperFirst(c.summary))
			}
		}
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags anywhere among the arguments ("show ID --lines 1:9"
// as well as "show --lines 1:9 ID") and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, silentError{code: exitOK}
			}
			return nil, &hintedError{err: err, usage: true, hint: fmt.Sprintf("run `ctxkeep %s -h` for its flags", fs.Name())}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// noArgs parses a command that takes flags only.
func noArgs(fs *flag.FlagSet, args []string) error {
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("%s takes no arguments, got %q", fs.Name(), pos[0]).withHint("run `ctxkeep %s -h` for its flags", fs.Name())
	}
	return nil
}
