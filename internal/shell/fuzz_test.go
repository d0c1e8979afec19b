package shell

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzRead checks that no command line makes Read panic or hang, and that
// what it reads holds together: every command has words, its program is
// within them, a literal word is what the line said once its quotes are
// gone. The seeds are the corpus of real and hostile commands, and deep
// ones.
func FuzzRead(f *testing.F) {
	for _, c := range corpus(f) {
		f.Add(c)
	}
	for _, c := range deep {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) {
		l, err := readLine(line) // not Read: each input afresh
		if err != nil {
			if l != nil {
				t.Fatalf("Read(%q) = a Line and %v", line, err)
			}
			return
		}
		for i := range l.Commands {
			c := &l.Commands[i]
			if len(c.Args) == 0 {
				t.Fatalf("Read(%q): command %d has no words", line, i)
			}
			if p := c.Program(); p < 0 || p > len(c.Args) {
				t.Fatalf("Read(%q): Program() = %d of %d words", line, p, len(c.Args))
			}
			if c.dynamic != nil && len(c.dynamic) != len(c.Args) {
				t.Fatalf("Read(%q): %d flags for %d words", line, len(c.dynamic), len(c.Args))
			}
		}
	})
}

// corpus is testdata/commands.jsonl, real commands from public sessions
// (TestCorpusFile says where from), and testdata/hostile.jsonl, command
// lines written to be hard to read and to wrap.
func corpus(t testing.TB) []string {
	return append(readLines(t, "testdata/commands.jsonl"), readLines(t, "testdata/hostile.jsonl")...)
}

// readLines reads a file of JSON strings, one a line.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []string
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c string
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// deep are lines that nest or chain a lot.
var deep = []string{
	strings.Repeat("(", 2000) + "echo deep" + strings.Repeat(")", 2000),
	strings.Repeat("( ", 2000) + "echo deep" + strings.Repeat(" )", 2000),
	strings.Repeat("$(", 500) + "echo deep" + strings.Repeat(")", 500),
	strings.Repeat("echo a | ", 2000) + "cat",
	strings.Repeat("{ ", 1000) + "echo" + strings.Repeat("; }", 1000),
	strings.Repeat("eval ", 100) + "echo",
	strings.Repeat("if true; then ", 500) + "echo" + strings.Repeat("; fi", 500),
}
