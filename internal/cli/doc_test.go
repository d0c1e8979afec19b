package cli

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the help blocks of docs/CLI.md from `ctxkeep help COMMAND`")

const cliDoc = "../../docs/CLI.md"

// docs/CLI.md holds, for every command, exactly what `ctxkeep help COMMAND`
// prints, between <!-- ctxkeep help NAME --> and <!-- end help --> (and
// the command list of `ctxkeep help` under <!-- ctxkeep help -->). The
// test fails when one differs or is missing; -update rewrites the blocks.
func TestCLIDocMatchesHelp(t *testing.T) {
	data, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	want := docWithHelp(t, doc)
	if want == doc {
		return
	}
	if *update {
		if err := os.WriteFile(cliDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/CLI.md does not match `ctxkeep help COMMAND`: run `go test ./internal/cli -run TestCLIDocMatchesHelp -update` and review the diff")
}

var helpBlock = regexp.MustCompile("(?s)<!-- ctxkeep help ?([a-z ]*) -->\n.*?<!-- end help -->")

// docWithHelp is doc with every help block rewritten from the command
// table; every command must have one.
func docWithHelp(t *testing.T, doc string) string {
	t.Helper()
	seen := map[string]bool{}
	out := helpBlock.ReplaceAllStringFunc(doc, func(block string) string {
		name := helpBlock.FindStringSubmatch(block)[1]
		var b strings.Builder
		if name == "" {
			printHelp(&b)
		} else if c := lookup(name); c != nil {
			printCommandHelp(&b, c)
		} else {
			t.Errorf("docs/CLI.md has a help block for %q, which is no command", name)
			return block
		}
		seen[name] = true
		marker := "<!-- ctxkeep help " + name + " -->"
		if name == "" {
			marker = "<!-- ctxkeep help -->"
		}
		return marker + "\n```text\n" + b.String() + "```\n<!-- end help -->"
	})
	for _, c := range append([]*command{{name: ""}}, commands...) {
		if !seen[c.name] {
			t.Errorf("docs/CLI.md has no help block for %q: add <!-- ctxkeep help %s --> and <!-- end help --> where it belongs", c.name, c.name)
		}
	}
	return out
}
