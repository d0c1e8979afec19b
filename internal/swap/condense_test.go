package swap

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestCondenseCorpus: for every case in testdata/condense — a command, its
// output (real ones from public sessions, or written after the tool's own
// format) and the condensed text wanted — the command finds the condenser
// the file is named after, and the condensed text is the one wanted. Every
// failure line of the original (each marker and all its causes, as
// swap.Failures finds them) is in the condensed text as a whole line; a
// failing run ("…-fail…") has failures (a test run's with their causes), and a passing run
// ("…-pass…") has none and shrinks by at least a third. Every condenser
// has both.
//
//	go test ./internal/swap -run CondenseCorpus -update   # after a change to the rules, then review the diff
func TestCondenseCorpus(t *testing.T) {
	paths, _ := filepath.Glob("testdata/condense/*.txtar")
	covered := map[string]map[string]bool{}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil || len(ar.Files) != 3 || ar.Files[0].Name != "command" || ar.Files[1].Name != "output" || ar.Files[2].Name != "want" {
				t.Fatalf("want a command, an output and a want section: %v", err)
			}
			command := strings.TrimSpace(string(ar.Files[0].Data))
			original := string(ar.Files[1].Data)
			slug, kind, ok := strings.Cut(name, "-pass")
			if !ok {
				slug, _, ok = strings.Cut(name, "-fail")
				kind = "fail"
			} else {
				kind = "pass"
			}
			if !ok {
				t.Fatalf("name %s says neither -pass nor -fail", name)
			}
			c := CondenserFor(command)
			if c == nil || condenserSlug(c.Name) != slug {
				t.Fatalf("command %q finds condenser %v, want %s", command, c, slug)
			}
			if covered[c.Name] == nil {
				covered[c.Name] = map[string]bool{}
			}
			covered[c.Name][kind] = true
			exit := 0
			if kind == "fail" {
				exit = 1
			}
			it := Item{ID: "0123456789ab", Tool: "Bash", Input: command, Text: original, Exit: exit}
			got, ok := c.Condense(it, Budget{KeepSecrets: true})
			if !ok {
				t.Fatalf("nothing folded")
			}
			fs, count := Failures(original, -1)
			checkFailuresKept(t, fs, got.Text)
			switch {
			case kind == "fail" && count.Failures == 0:
				t.Errorf("a failing run without failures")
			case kind == "fail" && testRunners[slug] && !slices.ContainsFunc(fs, func(f Failure) bool { return len(f.Causes) > 0 }):
				t.Errorf("a failing test run without a failure that has a cause: %d failures", count.Failures)
			case kind == "pass" && count.Failures > 0:
				t.Errorf("a passing run with %d failures", count.Failures)
			}
			before, after := utf8.RuneCountInString(original), utf8.RuneCountInString(got.Text)
			if kind == "pass" && after*3 > before*2 {
				t.Errorf("a passing run shrank only from %d to %d chars", before, after)
			}
			if after >= before {
				t.Errorf("condensed to %d chars from %d", after, before)
			}
			if *update {
				ar.Files[2].Data = []byte(got.Text)
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(ar.Files[2].Data); got.Text != want {
				t.Errorf("condensed:\n%s\nwant:\n%s", got.Text, want)
			}
		})
	}
	for _, c := range condensers {
		if !covered[c.Name]["pass"] || !covered[c.Name]["fail"] {
			t.Errorf("condenser %q lacks a case in testdata/condense (pass: %v, fail: %v)", c.Name, covered[c.Name]["pass"], covered[c.Name]["fail"])
		}
	}
}

// checkFailuresKept: every marker and cause is a whole line of condensed.
func checkFailuresKept(t *testing.T, fs []Failure, condensed string) {
	t.Helper()
	kept := map[string]bool{}
	for _, l := range strings.Split(condensed, "\n") {
		kept[l] = true
	}
	for _, f := range fs {
		for _, l := range f.Lines() {
			if !kept[strings.TrimSuffix(l.Text, "\r")] && !kept[l.Text] {
				t.Errorf("failure line %d folded: %q", l.N, l.Text)
			}
		}
	}
}

// testRunners are the condensers whose failing case must have a failure
// with its causes (a test's assertion); for the others the failure's own
// line says it all (a compiler error, "npm error …").
var testRunners = map[string]bool{"go-test": true, "pytest": true, "jest-vitest": true, "cargo-test": true, "mix-test": true, "rspec": true, "tests": true, "maven": true}

func condenserSlug(name string) string {
	return strings.NewReplacer(" ", "-", "/", "-").Replace(name)
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, line string
		want          bool
	}{
		{"=== RUN …", "=== RUN   TestX", true},
		{"=== RUN …", "=== RUNNER", false},
		{"--- PASS: …", "--- PASS: TestX (0.00s)", true},
		{"…_test.go:{0-9}: …", "refund_test.go:95: refunded 3 orders", true},
		{"…_test.go:{0-9}: …", "refund_test.go:x: refunded", false},
		{"{.*}", "..........*...", true},
		{"{.*}", "....F....", false},
		{"….py {.sx} …[…%]", "tests/test_a.py ..s..   [ 40%]", true},
		{"….py {.sx} …[…%]", "tests/test_a.py ..F..   [ 40%]", false},
		{"commit {0-9a-f}…", "commit 3f2a9c1d (HEAD -> main)", true},
		{"commit {0-9a-f}…", "commit message", false},
		{"test … ... ok", "test cart::tests::adds ... ok", true},
		{"test … ... ok", "test cart::tests::adds ... FAILED", false},
		{"Compiling {0-9} file…", "Compiling 1 file (.ex)", true},
		{"Compiling {0-9} file…", "Compiling 78 files (.ex)", true},
		{"{+-}", "++++++++++++", true},
		{"a{b", "a{b", true},       // a brace without its pair is literal
		{"[INFO]", "[INFO]", true}, // brackets are literal
	} {
		if got := parseGlob(c.pattern).match(c.line); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.pattern, c.line, got, c.want)
		}
	}
}

func TestCondenserFor(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{"go test ./...", "go test"},
		{"cd app && mix test 2>&1 | tail -20", "mix test"},
		{"mix format && mix test", "mix test"},
		{"mix deps.get", "mix"},
		{"npm test", "tests"},
		{"npx vitest run 2>&1", "jest/vitest"},
		{"git log --oneline -20", "git log"},
		{"git log | head -50", "git log"},
		{"git diff 2>&1", "git diff"},
		{"cd sub && git status", "git status"},
		{"find . -name '*.go' | sort", "listing"},
		{"ls -la", "listing"},
		// Condensers that fold by position apply only to their command's
		// own output, maybe filtered: not to what another command made of it.
		{"find . -name '*.go' | xargs grep TODO", ""},
		{"git log --format=%H | while read h; do git show $h; done", ""},
		{"ls | wc -l", ""},
		{"echo go test", ""},
		{"cat go.mod", ""},
	} {
		got := ""
		if cd := CondenserFor(c.command); cd != nil {
			got = cd.Name
		}
		if got != c.want {
			t.Errorf("CondenserFor(%q) = %q, want %q", c.command, got, c.want)
		}
	}
}

// TestCondenseNeverFoldsFailures: a condenser whose rule folds every line
// still keeps every failure line and every line that says it failed.
func TestCondenseNeverFoldsFailures(t *testing.T) {
	all := &Condenser{Name: "all", Fold: []Fold{{Label: "lines", Patterns: []string{"…"}}}}
	text := strings.Repeat("noise line\n", 20) + "--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1 want 2\n" +
		strings.Repeat("noise line\n", 20) + "Preparing metadata (setup.py) ... error\n" + strings.Repeat("noise line\n", 20)
	got, ok := all.Condense(Item{ID: "0123456789ab", Tool: "Bash", Text: text, Exit: NoExit}, Budget{})
	if !ok {
		t.Fatal("nothing folded")
	}
	for _, want := range []string{"--- FAIL: TestX (0.00s)\n", "    x_test.go:12: got 1 want 2\n", "Preparing metadata (setup.py) ... error\n"} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("folded %q:\n%s", want, got.Text)
		}
	}
	if got.Folded != 55 || strings.Count(got.Text, "[… ") != 3 {
		t.Errorf("folded %d lines:\n%s", got.Folded, got.Text)
	}
}

// FuzzCondense: whatever the output, condensing does not panic, never
// folds a failure line, and says how many lines it folded.
func FuzzCondense(f *testing.F) {
	paths, _ := filepath.Glob("testdata/condense/*.txtar")
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err == nil && len(ar.Files) == 3 {
			f.Add(strings.TrimSpace(string(ar.Files[0].Data)), string(ar.Files[1].Data))
		}
	}
	f.Fuzz(func(t *testing.T, command, text string) {
		c := CondenserFor(command)
		if c == nil {
			c = condensers[len(condensers)-1]
		}
		got, ok := c.Condense(Item{ID: "0123456789ab", Tool: "Bash", Input: command, Text: text, Exit: NoExit}, Budget{KeepSecrets: true})
		if !ok {
			return
		}
		fs, _ := Failures(text, -1)
		checkFailuresKept(t, fs, got.Text)
		if got.Folded <= 0 || !strings.Contains(got.Text, commas(got.Folded)+" folded") {
			t.Errorf("folded %d:\n%s", got.Folded, got.Text)
		}
	})
}

func TestSaysFailure(t *testing.T) {
	for line, want := range map[string]bool{
		"Preparing metadata (setup.py) ... error": true,
		"npm error code 1":                        true,
		"--- PASS: TestErrorHandling (0.00s)":     false,
		"✓ returns an error for negatives":        true,
		"test_failures.py::test_ok PASSED":        false,
		"[warning] TailWorker: failed to start":   true,
		"=== RUN   TestCase12":                    false,
		"FAIL: x":                                 true,
		"panicked":                                false,
		"":                                        false,
	} {
		if got := saysFailure(line); got != want {
			t.Errorf("saysFailure(%q) = %v, want %v", line, got, want)
		}
	}
}

// Render: below its threshold, an output is condensed only when that saves
// swap.condense_min_saving percent; above, the condensed text must fit the
// view's budget, else the view is shown; never a condensed text as long
// as the output.
func TestRender(t *testing.T) {
	cd := CondenserFor("go test -v ./...")
	var b strings.Builder
	for i := range 80 {
		fmt.Fprintf(&b, "=== RUN   TestCase%02d\n--- PASS: TestCase%02d (0.00s)\n", i, i)
	}
	run := b.String() + "PASS\nok  \texample.com/shop\t0.012s\n"
	it := Item{ID: "0123456789ab", Tool: "Bash", Input: "go test -v ./...", Text: run, Exit: 0}
	budget := Budget{Chars: 2500, Summary: 500, KeyLines: 20}
	if text, st := Render(it, cd, false, budget, 30); st.Kind != KindCondensed || len(text) >= len(run)/2 {
		t.Errorf("below the threshold: %s, %d of %d bytes", st.Kind, len(text), len(run))
	}
	if text, _ := Render(it, cd, false, budget, 99); text != "" {
		t.Errorf("condensed though it saves less than 99%%:\n%s", text)
	}
	if text, _ := Render(it, nil, false, budget, 30); text != "" {
		t.Errorf("below the threshold without a condenser: %q", text)
	}
	if _, st := Render(it, cd, true, budget, 30); st.Kind != KindCondensed {
		t.Errorf("over the threshold, fitting the budget: %s", st.Kind)
	}
	if _, st := Render(it, cd, true, Budget{Chars: 300, Summary: 100, KeyLines: 20}, 30); st.Kind != KindView {
		t.Errorf("over the threshold, past the budget: %s", st.Kind)
	}
	small := Item{ID: "0123456789ab", Tool: "Bash", Text: "=== RUN   TestA\n--- PASS: TestA (0.00s)\nok  \tx\t0.01s\n", Exit: 0}
	if text, _ := Render(small, cd, false, budget, 0); text != "" {
		t.Errorf("condensed to no shorter:\n%s", text)
	}
}
