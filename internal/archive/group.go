package archive

import (
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/shell"
)

// RunGroup is what a command line runs, as the working state groups its
// runs: the line's commands read with the shell parser, without what only
// shapes or moves around the output — redirections (2>&1), the filters it
// is piped into (| tail -15, | head -100, | grep …), a cd before it, an
// echo between two commands, the commands whose output a word substitutes
// ($(cat <<EOF …)) — each word as written when it is not literal. So
// `mix test --seed 0 2>&1 | tail -15` and `cd app && mix test --seed 0 |
// head -100` are one group, "mix test --seed 0", and `mix test
// test/a_test.exs` another. A line that does not parse is its own group,
// its words as written.
func RunGroup(command string) string {
	line, err := shell.Read(command)
	if err != nil {
		return strings.Join(strings.Fields(command), " ")
	}
	var parts []string
	for i := range line.Commands {
		c := &line.Commands[i]
		run := c.Run()
		if len(run) == 0 || c.Substituted || c.InFunction || c.Piped && filters[run[0]] || incidental[run[0]] {
			continue
		}
		if p := strings.Join(run, " "); !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return strings.Join(strings.Fields(command), " ")
	}
	return strings.Join(parts, " && ")
}

// filters are the programs that, read from a pipe, only cut or reorder
// what the command before them printed.
var filters = map[string]bool{
	"tail": true, "head": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "sort": true, "uniq": true,
	"wc": true, "cat": true, "tee": true, "less": true, "more": true, "cut": true, "tr": true, "sed": true, "awk": true,
	"column": true, "jq": true, "nl": true, "fold": true, "fmt": true, "ansi2txt": true, "strings": true,
}

// incidental are the commands a line runs around the one it is about.
var incidental = map[string]bool{"cd": true, "pushd": true, "popd": true, "echo": true, "printf": true, "sleep": true, "true": true, ":": true, "clear": true}
