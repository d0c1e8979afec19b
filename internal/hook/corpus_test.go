package hook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/corpus"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// TestRunnerCorpus runs every case of the runner corpus (real outputs of
// 16 test runners, compilers and linters, labelled by their own
// machine-readable reports: internal/corpus) through ctxkeep as the
// client meets it: the PostToolUse hook for a command that exited 0 (the
// client sends a failure to PostToolUseFailure, where no hook can replace
// it) and `ctxkeep capture`, the wrapper's end, for every exit status.
// What the model sees of each: no escape byte; no failure claimed for a
// run its runner reports as passing; and where ctxkeep gives an account of
// the run, the runner's own counts and every failing test the output
// names. The runner's account is also checked directly.
func TestRunnerCorpus(t *testing.T) {
	cases := corpus.Load(t)
	runners := map[string]bool{}
	accounts := 0
	for _, c := range cases {
		runners[c.Runner] = true
		t.Run(c.Name, func(t *testing.T) {
			checkRun(t, c)
			f, small := newSwapFixture(t), newSwapFixture(t)
			small.vars["CTXKEEP_THRESHOLD_BASH"] = "1" // every output over its threshold: the view, or the condensed output if it fits
			seen := map[string]string{
				"wrapper":              f.captureOf(c.Command, c.Output, c.Exit),
				"wrapper, threshold 1": small.captureOf(c.Command, c.Output, c.Exit),
			}
			if c.Exit == 0 {
				seen["PostToolUse"] = f.postOf(c)
				seen["PostToolUse, threshold 1"] = small.postOf(c)
			}
			for how, s := range seen {
				if checkSeen(t, how, c, s) {
					accounts++
				}
			}
		})
	}
	if len(cases) < 60 || len(runners) < 10 {
		t.Errorf("%d cases from %d runners: the corpus should hold 60 from 10 at least", len(cases), len(runners))
	}
	t.Logf("%d cases from %d runners; %d of what the model saw gave the runner's account", len(cases), len(runners), accounts)
}

// checkRun: swap.ReadRun counts as the runner's report does, and names
// every failed test that the output names.
func checkRun(t *testing.T, c corpus.Case) {
	t.Helper()
	r := swap.ReadRun(c.Command, c.Output)
	switch {
	case passing(c):
		if r.Known() && !r.Passing(c.Exit) {
			t.Errorf("a passing run read as %q", r.Outcome(c.Exit))
		}
		return
	case !r.Known():
		t.Fatalf("no runner recognised; the labels say %d failed, %d errors", c.Failed, c.Errors)
	case r.Unit == "error" && r.Failed != c.Errors:
		t.Errorf("%q: %d errors, the compiler's report says %d", r.Outcome(c.Exit), r.Failed, c.Errors)
	case r.Unit != "error" && (r.Failed != c.Failed || r.Errors != c.Errors):
		t.Errorf("%q: %d failed and %d errors, the runner's report says %d and %d", r.Outcome(c.Exit), r.Failed, r.Errors, c.Failed, c.Errors)
	}
	for _, want := range named(c) {
		if !containsFunc(r.Failing, func(n swap.Named) bool { return strings.Contains(n.Name, want) || strings.Contains(want, n.Name) }) {
			t.Errorf("failed test %q not named (named: %v)", want, r.Failing)
		}
	}
}

func containsFunc(ns []swap.Named, f func(swap.Named) bool) bool {
	for _, n := range ns {
		if f(n) {
			return true
		}
	}
	return false
}

// passing reports whether the runner's report says the run passed.
func passing(c corpus.Case) bool { return c.Failed == 0 && c.Errors == 0 && c.Exit == 0 }

// named are the failed tests of c that its output names (a `| tail` may
// have cut some), as a terminal shows them.
func named(c corpus.Case) []string {
	out := text.Printable(c.Output)
	var in []string
	for _, n := range c.FailedTests {
		if strings.Contains(out, n) {
			in = append(in, n)
		}
	}
	return in
}

var (
	reportsFailed = regexp.MustCompile(` reports (?:[^;\n(]*?)(\d+) failed`)
	reportsErrors = regexp.MustCompile(` reports (?:[^;\n(]*?)(\d+) errors?\b`)
	failureTitle  = regexp.MustCompile(`(?m)^\d+ failure lines?`)
)

// checkSeen checks what the model saw of c (how: through which door), and
// reports whether it gave the runner's account.
func checkSeen(t *testing.T, how string, c corpus.Case, seen string) bool {
	t.Helper()
	if strings.ContainsAny(seen, "\x1b\u009b") {
		t.Errorf("%s: an escape reaches the model:\n%q", how, seen)
	}
	if !strings.HasPrefix(seen, "[ctxkeep]") {
		return false // the output itself (cleaned), without ctxkeep's account
	}
	if passing(c) {
		if failureTitle.MatchString(seen) || strings.Contains(seen, "failure line") || reportsNonZero(seen) {
			t.Errorf("%s: a passing run is called failing:\n%s", how, seen)
		}
		return strings.Contains(seen, " reports ")
	}
	if !strings.Contains(seen, " reports ") {
		t.Errorf("%s: no account of a failing run:\n%s", how, seen)
		return false
	}
	r := swap.ReadRun(c.Command, c.Output)
	want, re := c.Failed, reportsFailed
	if r.Unit == "error" {
		want, re = c.Errors, reportsErrors
	}
	if m := re.FindStringSubmatch(seen); m == nil || m[1] != strconv.Itoa(want) {
		t.Errorf("%s: the account does not say %d (%v):\n%s", how, want, m, seen)
	}
	for _, n := range named(c) {
		if !strings.Contains(seen, shortName(n)) {
			t.Errorf("%s: failed test %q not named:\n%s", how, n, seen)
		}
	}
	return true
}

// reportsNonZero reports whether an account says something failed.
func reportsNonZero(seen string) bool {
	for _, re := range []*regexp.Regexp{reportsFailed, reportsErrors} {
		if m := re.FindStringSubmatch(seen); m != nil && m[1] != "0" {
			return true
		}
	}
	return false
}

// shortName is as much of a name as a view shows (it cuts names at 100
// bytes).
func shortName(n string) string { return text.Cut(n, 90)[:min(len(n), 80)] }

// postOf runs c's output through PostToolUse, as the client sends a
// command that exited 0, and returns what the model sees: the
// replacement, or the output itself when there is none.
func (f *swapFixture) postOf(c corpus.Case) string {
	f.t.Helper()
	reply := f.post("Bash", map[string]any{"command": c.Command}, bash(c.Output))
	if reply == nil {
		return c.Output
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	if err := json.Unmarshal(reply["updatedToolOutput"], &out); err != nil {
		f.t.Fatal(fmt.Errorf("reply: %w", err))
	}
	return out.Stdout
}
