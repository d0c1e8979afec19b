package swap

import (
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/text"
)

// A run as its runner reports it. The failure model (failures.go) finds
// the lines that mark failures, and their causes, in any output; it cannot
// know how many tests failed — one failing go test prints "--- FAIL",
// "FAIL", "exit status 1" and "FAIL pkg" — and in a passing run its
// markers are noise: an error a test logs on purpose, an object dump, the
// stack trace of a panic a test expects. A test runner or a compiler says
// itself what failed: in its summary line, and in the names it gives the
// failing tests. ReadRun reads that account for the runners of the table
// in runners.go, and views, condensed outputs and the working state say
// what the runner says: its counts, each failing test by name. Lines in an
// output no known runner printed are counted as failure lines, never as
// failures.

// Run is what a test runner, a compiler or a linter reported of its run.
type Run struct {
	Runner  string // as the model reads it: "pytest", "go test", "tsc"; "" when no known runner printed the output
	Summary Line   // the runner's own summary line; N == 0 when it prints none
	Parts   int    // summary lines added up (cargo prints one per test binary); Summary is the last
	Failed  int    // failing tests, or errors of a compiler or a linter
	// Errors are what a test runner counts apart from failed tests: a test
	// that errored (pytest, unittest), a file or suite that did not load,
	// a package that did not build; ErrorNoun names one ("error").
	Errors    int
	ErrorNoun string
	Passed    int // passing tests; -1 when the runner does not say
	Skipped   int
	Unit      string  // what Failed counts: "test" or "error"
	Failing   []Named // what failed by name (tests, or the places of errors), in the order of the output
	// Broken says why a run ended before its tests could pass or fail
	// ("build failed"); Failed is then its errors, if it counted them.
	Broken string
}

// Named is a failing test, or an error, by the name its runner gives it,
// and the line that names it.
type Named struct {
	Name string
	Line Line
}

// maxNamed bounds the names a Run keeps: a view lists fewer, and a run of
// thousands of failures must not cost thousands of strings.
const maxNamed = 200

// Known reports whether a known runner printed the output.
func (r Run) Known() bool { return r.Runner != "" }

// Passing reports whether the runner reports the run as passing: nothing
// failed, nothing broke, and the exit status (when known) agrees. Such a
// run is never called failing, whatever lines in it look like failures.
func (r Run) Passing(exit int) bool {
	return r.Known() && r.Failed == 0 && r.Errors == 0 && r.Broken == "" && (exit == 0 || exit == NoExit)
}

// Says writes the runner's account in a few words: "2 failed, 60 passed,
// 1 skipped", "3 errors", "build failed".
func (r Run) Says() string {
	var parts []string
	if r.Broken != "" {
		parts = append(parts, r.Broken)
	}
	if r.Unit == "error" {
		if r.Failed > 0 || r.Broken == "" {
			parts = append(parts, text.Plural(r.Failed, "error"))
		}
		return strings.Join(parts, ", ")
	}
	if r.Failed > 0 || r.Broken == "" {
		parts = append(parts, fmt.Sprintf("%d failed", r.Failed))
	}
	if r.Errors > 0 {
		parts = append(parts, r.errors())
	}
	if r.Passed >= 0 {
		parts = append(parts, fmt.Sprintf("%d passed", r.Passed))
	}
	if r.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", r.Skipped))
	}
	return strings.Join(parts, ", ")
}

// errors writes Errors with their noun: "1 error", "2 packages that did not build".
func (r Run) errors() string {
	noun, what := r.ErrorNoun, ""
	if noun == "" {
		noun = "error"
	}
	if i := strings.IndexByte(noun, ' '); i > 0 {
		noun, what = noun[:i], noun[i:]
	}
	return text.Plural(r.Errors, noun) + what
}

// Outcome is the account in one phrase for inventories: "pytest: 2
// failed, 60 passed"; "" for an output no known runner printed.
func (r Run) Outcome(exit int) string {
	if !r.Known() {
		return ""
	}
	s := r.Runner + ": " + r.Says()
	if r.silentFailure(exit) {
		s += fmt.Sprintf(", yet exit status %d", exit)
	}
	return s
}

// silentFailure reports whether the run failed without the runner counting
// why: nothing failed, yet a non-zero exit status.
func (r Run) silentFailure(exit int) bool {
	return !r.Passing(exit) && r.Failed == 0 && r.Errors == 0 && r.Broken == "" && exit != NoExit
}

// Headline is the line a view or a condensed output opens its account of
// the run with: "pytest reports 2 failed, 60 passed (L88: "== 2 failed, 60
// passed in 0.12s ==")."
func (r Run) Headline(exit int) string {
	s := r.Runner + " reports " + r.Says()
	switch {
	case r.Parts > 1:
		s += fmt.Sprintf(" (its %d result lines added up, the last L%d)", r.Parts, r.Summary.N)
	case r.Summary.N > 0:
		s += fmt.Sprintf(" (L%d: %q)", r.Summary.N, cut(r.Summary.Text, 100))
	}
	if r.silentFailure(exit) {
		s += fmt.Sprintf(", yet exit status %d", exit)
	}
	return s
}

// ReadRun reads what the runner that printed output (of command) reports
// of its run; a Run that is not Known when no known runner printed it.
func ReadRun(command, output string) Run {
	output = text.Printable(output) // as views read it: a colour code inside a name must not hide it
	return readRun(command, output, splitLines(output))
}

// readRun is ReadRun for text as a terminal shows it, already split into
// lines. A runner is tried
// only when text holds one of its anchors: most outputs are no runner's,
// and a megabyte of log must not be read thirty times.
func readRun(command, text string, lines []string) Run {
	var pl []string
	for _, rr := range runners {
		if !hasAny(text, rr.anchors...) {
			continue
		}
		if pl == nil {
			pl = make([]string, len(lines))
			for i, l := range lines {
				pl[i] = plain(l)
			}
		}
		r := Run{Passed: -1, Unit: "test"}
		if rr.read(pl, &r) {
			r.Runner = rr.name
			if rr.named != nil {
				r.Runner = rr.named(command, pl)
			}
			return r
		}
	}
	return Run{Passed: -1}
}

// name adds a failing test or error, once.
func (r *Run) name(name string, i int, line string) {
	name = strings.TrimSpace(name)
	if name == "" || len(r.Failing) >= maxNamed {
		return
	}
	for _, n := range r.Failing {
		if sameTest(n.Name, name) {
			return
		}
	}
	r.Failing = append(r.Failing, Named{Name: cut(name, 200), Line: Line{N: i + 1, Text: line}})
}

// sameTest reports whether two names name one test: the same, or one
// qualified by its package ("shop.CheckoutTest.total", "CheckoutTest.total").
func sameTest(a, b string) bool {
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// summary records the runner's summary line.
func (r *Run) summary(i int, line string) { r.Summary = Line{N: i + 1, Text: line} }

// counts reads the counts of a summary line: "N word" pairs ("2 failed, 60
// passed, 1 skipped in 0.12s", "Tests  2 failed | 60 passed (62)"), and
// "word=N" or "Word: N" ones ("FAILED (failures=2, errors=1)", "Tests
// run: 3, Failures: 1"). Words are lower-cased; a word counted twice keeps
// its first count.
func counts(t string) map[string]int {
	m := map[string]int{}
	type token struct {
		s      string
		num    bool
		before string // what separates it from the token before
	}
	var toks []token
	for i := 0; i < len(t); {
		j := i
		for j < len(t) && !isAlnum(t[j]) {
			j++
		}
		sep := t[i:j]
		if j == len(t) {
			break
		}
		k := j
		num := isDigit(t[j])
		for k < len(t) && isAlnum(t[k]) && isDigit(t[k]) == num {
			k++
		}
		toks = append(toks, token{s: t[j:k], num: num, before: sep})
		i = k
	}
	set := func(w string, n int) {
		w = strings.ToLower(w)
		if _, ok := m[w]; !ok {
			m[w] = n
		}
	}
	for i, tk := range toks {
		if !tk.num {
			continue
		}
		n := atoi(tk.s)
		if i+1 < len(toks) && !toks[i+1].num && strings.TrimSpace(toks[i+1].before) == "" {
			set(toks[i+1].s, n) // "2 failed"
			continue
		}
		if i > 0 && !toks[i-1].num && strings.Trim(tk.before, " \t") != "" && strings.Trim(strings.TrimSpace(tk.before), "=:") == "" {
			set(toks[i-1].s, n) // "failures=2", "Failures: 1"
		}
	}
	return m
}

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9 && isDigit(s[i]); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// first returns the first count of m among words, and whether there is one.
func first(m map[string]int, words ...string) (int, bool) {
	for _, w := range words {
		if n, ok := m[w]; ok {
			return n, true
		}
	}
	return 0, false
}

// sum adds the counts of m among words.
func sum(m map[string]int, words ...string) int {
	n := 0
	for _, w := range words {
		n += m[w]
	}
	return n
}
