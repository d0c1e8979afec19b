package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
)

// command is one entry of the command table: what help says about it, and
// how it registers its flags and runs.
type command struct {
	name     string
	usage    string   // the synopsis after "ctxkeep "
	summary  string   // one line for `ctxkeep help`
	long     string   // what it does, for `ctxkeep help NAME`: paragraphs wrapped at 100 columns
	examples []string // command lines, each with an optional "  # comment"
	group    string
	// raw commands take their arguments as they are, without flags
	// (capture: run by the wrapper with whatever it spooled).
	raw bool
	// setup registers the command's flags on fs, into a fresh options
	// struct, and returns the function that runs it with the positional
	// arguments. The hook has none: it is dispatched before the table.
	setup func(fs *flag.FlagSet) runFunc
}

type runFunc func(ctx context.Context, a *app, args []string) error

// Groups of commands, in the order help lists them.
const (
	groupSetup   = "Set up and check"
	groupOutputs = "Tool outputs kept out of the context"
	groupArchive = "The archive of conversations"
	groupContext = "The context window"
	groupStore   = "Tending the store and transcripts"
	groupClient  = "Run by Claude Code and the wrapper"
	groupOther   = "Other"
)

var groups = []string{groupSetup, groupOutputs, groupArchive, groupContext, groupStore, groupClient, groupOther}

var commands []*command

func init() {
	// Built at init: help's run reads the table.
	commands = []*command{
		installCmd, uninstallCmd, doctorCmd, configCmd, configSetCmd,
		listCmd, showCmd, pinCmd, unpinCmd, pinsCmd, learnedCmd,
		searchCmd, recallCmd, archiveCmd, teamCmd,
		contextCmd, statsCmd, replayCmd, uiCmd,
		pruneCmd, checkCmd, optimizeCmd, purgeCmd,
		hookCmd, mcpCmd, statuslineCmd, captureCmd,
		versionCmd, helpCmd,
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// execute parses the command's flags and runs it. --help (or -h) prints
// the command's help on stdout instead.
func (c *command) execute(ctx context.Context, a *app, args []string) error {
	if c.setup == nil || (len(args) > 0 && isHelpFlag(args[0]) && c.raw) {
		printCommandHelp(a.Stdout, c)
		return nil
	}
	fs := newFlagSet(c.name)
	run := c.setup(fs)
	if c.raw {
		return run(ctx, a, args)
	}
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(a.Stdout, c)
		return nil
	}
	if err != nil {
		return flagError(c, fs, err)
	}
	return run(ctx, a, pos)
}

// unknownCommand is the error of a command line whose command is none of
// ctxkeep's, with the likeliest one meant.
func unknownCommand(name string) error {
	var names []string
	for _, c := range commands {
		if !strings.Contains(c.name, " ") {
			names = append(names, c.name)
		}
	}
	err := usageErrorf("unknown command %q", name)
	if s := suggest(name, names); s != "" {
		return err.withHint("did you mean `ctxkeep %s`? `ctxkeep help` lists the commands", s)
	}
	return err.withHint("run `ctxkeep help` for the list of commands")
}

// suggest is the candidate a mistyped word most likely meant: one at most
// two edits away (one for words of four letters or fewer), or that it is
// the start of; "" when none is close.
func suggest(word string, candidates []string) string {
	w := strings.ToLower(strings.TrimLeft(word, "-"))
	best, bestD := "", 3
	if len(w) <= 4 {
		bestD = 2
	}
	for _, c := range candidates {
		if len(w) >= 3 && strings.HasPrefix(c, w) {
			return c
		}
		if d := editDistance(w, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short words, a swap of
// two neighbouring letters counting as one edit.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// newFlagSet makes a flag set that prints nothing itself: errors are
// reported once, by report, and help by printCommandHelp.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses flags anywhere among the arguments ("show ID --lines 1:9"
// as well as "show --lines 1:9 ID") and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
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

// flagError rewrites the flag package's messages ("flag provided but not
// defined: -bogus") the way the help writes flags (--bogus).
func flagError(c *command, fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := suggest(name, names); s != "" {
			return usageErrorf("unknown flag %s", dashes(strings.TrimLeft(name, "-"))).withHint("did you mean %s? `ctxkeep help %s` lists its flags", dashes(s), c.name)
		}
	}
	for _, r := range []struct{ from, to string }{
		{"flag provided but not defined: ", "unknown flag "},
		{"flag needs an argument: ", "a value is missing after "},
		{" for flag ", " for "},
	} {
		msg = strings.Replace(msg, r.from, r.to, 1)
	}
	msg = flagName().ReplaceAllStringFunc(msg, func(s string) string {
		name := strings.TrimLeft(s, " -")
		return s[:len(s)-len(strings.TrimLeft(s, " "))] + dashes(name)
	})
	return usageErrorf("%s", msg).withHint("run `ctxkeep help %s` for its flags", c.name)
}

// flagName and placeholderRE are compiled on first use: nothing is built
// at init in the binary the hooks start.
var flagName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^| )-{1,2}[A-Za-z][\w-]*`) })

// dashes writes a flag as help shows it: -C, --lines.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// noArgs refuses positional arguments for a command that takes flags only.
func noArgs(name string, pos []string) error {
	if len(pos) > 0 {
		return usageErrorf("%s takes no arguments, got %q", name, pos[0]).withHint("run `ctxkeep help %s`", name)
	}
	return nil
}

// printHelp is `ctxkeep help`: every command, by group.
func printHelp(w io.Writer) {
	fmt.Fprint(w, `ctxkeep keeps Claude Code's context lean and its work safe through compaction.

Usage: ctxkeep COMMAND [ARGUMENTS] [FLAGS]
`)
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, c := range commands {
			if c.group == g {
				fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
			}
		}
	}
	fmt.Fprint(w, `
Run "ctxkeep help COMMAND" (or "ctxkeep COMMAND --help") for its arguments, flags and examples.
Flags may come before or after arguments. Commands with --json print a JSON document instead,
and a JSON error object when they fail.
Exit codes: 0 success, 1 failure (or a problem doctor or check found), 2 bad command line,
130 interrupted.
Environment: CTXKEEP_HOME (one folder for all data), CTXKEEP_DISABLE=1 (hooks pass through),
CTXKEEP_<SECTION>_<KEY> (override a setting, see "ctxkeep config").
`)
}

// printCommandHelp is `ctxkeep help NAME` and `ctxkeep NAME --help`.
func printCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: ctxkeep %s\n\n%s.\n", c.usage, upperFirst(c.summary))
	if c.long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.long))
	}
	if c.setup != nil && !c.raw {
		fs := newFlagSet(c.name)
		c.setup(fs)
		if lines := flagHelp(fs); lines != "" {
			fmt.Fprintf(w, "\nFlags:\n%s", lines)
		}
	}
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, ex := range c.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
	}
}

// flagHelp lists the flags, two dashes each (one for a single letter),
// with their placeholder and default:
//
//	--max-age D       remove … (default: 30d)
//
// A placeholder is the first all-capitals word in backticks in the flag's
// usage (`N`, `A:B`); other backticks are code and stay as they are.
func flagHelp(fs *flag.FlagSet) string {
	type row struct{ left, text string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		ph, text := placeholder(f)
		left := dashes(f.Name)
		if ph != "" {
			left += " " + ph
		}
		if d := defaultOf(f); d != "" {
			text += " (default: " + d + ")"
		}
		rows = append(rows, row{left, text})
		width = max(width, len(left))
	})
	var b strings.Builder
	for _, r := range rows {
		indent := strings.Repeat(" ", 2+width+3)
		fmt.Fprintf(&b, "  %-*s   %s\n", width, r.left, wrap(r.text, 100-len(indent), indent))
	}
	return b.String()
}

var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([A-Z][A-Z0-9_:]*)`") })

func placeholder(f *flag.Flag) (string, string) {
	if m := placeholderRE().FindStringSubmatchIndex(f.Usage); m != nil {
		ph := f.Usage[m[2]:m[3]]
		return ph, f.Usage[:m[0]] + ph + f.Usage[m[1]:]
	}
	if isBool(f) {
		return "", f.Usage
	}
	switch f.Value.(flag.Getter).Get().(type) {
	case int, int64, float64:
		return "N", f.Usage
	case time.Duration:
		return "D", f.Usage
	}
	return "TEXT", f.Usage
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// defaultOf is the default worth saying: not a zero value.
func defaultOf(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false":
		return ""
	}
	return f.DefValue
}

// wrap breaks text into lines of at most width columns, the lines after
// the first starting with indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && n+1+len(word) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// The help command and the commands run by the client or the wrapper.
var (
	helpCmd = &command{
		name: "help", usage: "help [COMMAND]", group: groupOther,
		summary: "show help for ctxkeep or one command",
		long: `Without a command, lists every command. With one, prints its usage, what it does, every flag and
examples: the same as ` + "`ctxkeep COMMAND --help`" + `.`,
		examples: []string{"ctxkeep help search", "ctxkeep help config set"},
		setup:    func(*flag.FlagSet) runFunc { return runHelp },
	}
	versionCmd = &command{
		name: "version", usage: "version", group: groupOther,
		summary: "print ctxkeep's version",
		setup: func(*flag.FlagSet) runFunc {
			return func(_ context.Context, a *app, pos []string) error {
				if err := noArgs("version", pos); err != nil {
					return err
				}
				fmt.Fprintf(a.Stdout, "ctxkeep %s\n", version())
				return nil
			}
		},
	}
	hookCmd = &command{
		name: "hook", usage: "hook", group: groupClient,
		summary: "handle one Claude Code (or Codex, or Gemini CLI) hook event: JSON on stdin, the reply on stdout",
		long: `Claude Code runs it for every event ctxkeep registered (` + "`ctxkeep install`" + `), Codex CLI as
"hook --agent codex" (` + "`ctxkeep install --agent codex`" + `, docs/CODEX.md), Gemini CLI as
"hook --agent gemini" (` + "`ctxkeep install --agent gemini`" + `, docs/GEMINI.md). It reads one event
from stdin, handles it within the event's deadline, and writes the reply, if any, to stdout. It
always exits 0: on bad input, an internal error, a panic or a blown deadline it replies nothing,
so the agent goes on as if ctxkeep were not there, and the reason goes to the log, which
` + "`ctxkeep doctor`" + ` shows. CTXKEEP_DISABLE=1 makes it return at once. What install registers is
ctxkeep-hook, built and installed beside ctxkeep: "ctxkeep-hook hook" runs the same code in an
executable that loads only what hooks use, and starts faster on every hook call.`,
	}
)

// runHelp prints the help of ctxkeep, or of one command ("config set" too).
func runHelp(_ context.Context, a *app, args []string) error {
	if len(args) == 0 {
		printHelp(a.Stdout)
		return nil
	}
	c := lookup(strings.Join(args, " "))
	if c == nil {
		return unknownCommand(strings.Join(args, " "))
	}
	printCommandHelp(a.Stdout, c)
	return nil
}
