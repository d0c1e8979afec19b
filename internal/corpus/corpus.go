// Package corpus is test support: it loads the runner corpus, real outputs
// of test runners, compilers and linters on small projects, each labelled
// by the runner's own machine-readable report (never by ctxkeep).
// scripts/corpus.sh builds it into .cache/corpus/cases, and scripts/test.sh
// names it in CTXKEEP_CORPUS_DIR; docs/SWAP.md, "The runner corpus", says
// how the labels are read and how to add a case. When the corpus is not
// there the calling test is skipped on a laptop, and fails in CI
// (CI=true).
package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// A Case is one command line, what it printed and how it ended, with the
// runner's own account of it.
type Case struct {
	Name    string // the case's folder name, e.g. "pytest-fail-many-color"
	Runner  string // go, pytest, unittest, node, vitest, jest, mocha, cargo, mix, rspec, ctest, gcc, tsc, eslint, javac, junit
	Command string // the command line as an agent types it, e.g. "npx vitest run 2>&1"
	Output  string // the bytes it printed, stdout and stderr interleaved
	Exit    int    // its exit status (of the whole line: a "| tail" exits 0)

	// The labels, from the runner's own report (Source says which). For a
	// compiler or linter, Failed and Errors both count error diagnostics,
	// and Passed the files without one.
	Passed, Failed, Skipped, Errors int
	// FailedTests names every failed or errored test as the runner names it
	// (and every package, file or suite that did not load); for a compiler
	// or linter, the location of each error ("path:line:col", javac
	// "path:line"), for a link error the missing symbol.
	FailedTests []string
	Source      string
}

// Piped reports whether the command line sends the runner's output through a
// pipe (`| tail -50`): its exit status is then the last command's, and the
// output may lack what the pipe cut.
func (c Case) Piped() bool { return strings.Contains(c.Command, "|") }

// Dir is the corpus's folder: $CTXKEEP_CORPUS_DIR, else .cache/corpus/cases
// in the module's root.
func Dir() string {
	if d := os.Getenv("CTXKEEP_CORPUS_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0) // <repo>/internal/corpus/corpus.go
	return filepath.Join(filepath.Dir(file), "..", "..", ".cache", "corpus", "cases")
}

// Load reads every case of the corpus, sorted by name, or skips t (fails
// it under CI=true) when there is none.
func Load(t testing.TB) []Case {
	t.Helper()
	dir := Dir()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		realdata.Missing(t, "no runner corpus in %s (run scripts/corpus.sh): %v", dir, err)
	}
	var cases []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := read(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("corpus case %s: %v", e.Name(), err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		realdata.Missing(t, "no runner corpus in %s (run scripts/corpus.sh)", dir)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases
}

func read(dir string) (Case, error) {
	c := Case{Name: filepath.Base(dir)}
	command, err := os.ReadFile(filepath.Join(dir, "command"))
	if err != nil {
		return c, err
	}
	output, err := os.ReadFile(filepath.Join(dir, "output"))
	if err != nil {
		return c, err
	}
	exit, err := os.ReadFile(filepath.Join(dir, "exit"))
	if err != nil {
		return c, err
	}
	labels, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		return c, err
	}
	c.Command, c.Output = string(command), string(output)
	if c.Exit, err = strconv.Atoi(strings.TrimSpace(string(exit))); err != nil {
		return c, fmt.Errorf("exit: %w", err)
	}
	var l struct {
		Runner      string   `json:"runner"`
		FailedTests []string `json:"failed_tests"`
		Source      string   `json:"source"`
	}
	var counts struct {
		Passed  *int `json:"passed"`
		Failed  *int `json:"failed"`
		Skipped *int `json:"skipped"`
		Errors  *int `json:"errors"`
	}
	if err := json.Unmarshal(labels, &l); err != nil {
		return c, fmt.Errorf("labels.json: %w", err)
	}
	if err := json.Unmarshal(labels, &counts); err != nil {
		return c, fmt.Errorf("labels.json: %w", err)
	}
	if l.Runner == "" || l.Source == "" || counts.Passed == nil || counts.Failed == nil || counts.Skipped == nil || counts.Errors == nil {
		return c, fmt.Errorf("labels.json lacks a field: %s", labels)
	}
	c.Runner, c.FailedTests, c.Source = l.Runner, l.FailedTests, l.Source
	c.Passed, c.Failed, c.Skipped, c.Errors = *counts.Passed, *counts.Failed, *counts.Skipped, *counts.Errors
	return c, nil
}
