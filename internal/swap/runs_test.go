package swap

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The runner's account of every output of the two corpora: the runner's
// counts and what it names as failed. (TestRunnerCorpus checks the same
// against the runners' own machine-readable results.)
func TestRunsOfTheCorpora(t *testing.T) {
	want := map[string]string{
		"condense/cargo-build-fail":          "cargo build: build failed, 1 error",
		"condense/cargo-test-fail":           "cargo test: 1 failed, 23 passed",
		"condense/cargo-test-pass":           "cargo test: 0 failed, 26 passed",
		"condense/go-build-fail":             "go build: 2 errors",
		"condense/go-test-fail-subtests":     "go test: 2 failed, 60 passed",
		"condense/go-test-fail":              "go test: 2 failed, 33 passed, 1 skipped",
		"condense/go-test-pass":              "go test: 0 failed, 35 passed, 1 skipped",
		"condense/gradle-fail":               "javac: 1 error",
		"condense/jest-vitest-fail":          "vitest: 1 failed, 31 passed",
		"condense/jest-vitest-pass":          "jest: 0 failed, 36 passed, 4 skipped",
		"condense/make-fail":                 "gcc: 1 error",
		"condense/maven-fail":                "maven surefire: 1 failed, 11 passed",
		"condense/maven-pass":                "maven surefire: 0 failed, 12 passed",
		"condense/mix-fail":                  "mix: compilation failed, 1 error",
		"condense/mix-test-fail":             "mix test: 1 failed, 69 passed",
		"condense/mix-test-pass":             "mix test: 0 failed, 15 passed",
		"condense/pytest-fail":               "pytest: 1 failed, 474 passed",
		"condense/pytest-pass":               "pytest: 0 failed, 41 passed, 1 skipped",
		"condense/rspec-fail":                "rspec: 1 failed, 1839 passed, 12 skipped",
		"condense/rspec-pass":                "rspec: 0 failed, 1840 passed, 12 skipped",
		"condense/tests-pass":                "jest: 0 failed, 36 passed, 4 skipped",
		"failures/exunit":                    "mix test: 2 failed, 8 passed",
		"failures/gcc-make":                  "gcc: 1 error",
		"failures/go-build":                  "go test: 0 failed, 1 package that did not build",
		"failures/go-verbose":                "go test: 4 failed, 4 passed",
		"failures/jest":                      "jest: 1 failed, 1 passed",
		"failures/pass-exunit-real":          "mix test: 0 failed, 411 passed",
		"failures/pass-pytest":               "pytest: 0 failed, 4 passed",
		"failures/pass-rust":                 "cargo test: 0 failed, 3 passed",
		"failures/pytest":                    "pytest: 1 failed, 1 error, 3 passed",
		"failures/python-unittest":           "unittest: 1 failed, 3 passed",
		"failures/real-elixir-compile-error": "mix: compilation failed, 5 errors",
		"failures/real-exunit-four-of-five":  "mix test: 4 failed, 1 passed",
		"failures/real-tsc-errors":           "tsc: 3 errors",
		"failures/rust-test":                 "cargo test: 2 failed, 1 passed",
		"failures/rustc-error":               "rustc: build failed, 2 errors",
		"failures/vitest":                    "vitest: 1 failed, 1 passed",
		"condense/git-diff-fail":             "",
		"condense/listing-pass":              "",
		"condense/npm-install-fail":          "",
		"failures/prose-notes":               "",
		"failures/real-python-traceback":     "",
		"failures/shell":                     "",
	}
	names := map[string][]string{
		"failures/pytest":           {"tests/test_refund.py::test_rounding", "tests/test_refund.py::test_refund_db"},
		"failures/go-verbose":       {"TestRefundRounding", "TestRefundTable", "TestRefundTable/negative", "TestRefundCurrency"},
		"failures/rust-test":        {"tests::rounds_to_cents", "tests::splits_evenly"},
		"failures/jest":             {"refund › rounds to cents"},
		"condense/maven-fail":       {"shop.CheckoutTest.totalIncludesTax"},
		"condense/jest-vitest-fail": {"src/checkout.test.ts > checkout > totals with tax"},
		"condense/rspec-fail":       {"Checkout#total includes tax"},
		"failures/python-unittest":  {"test_rounding (test_refund.RefundTest.test_rounding)"},
		"failures/rustc-error":      {"src/lib.rs:12:22 E0308", "src/lib.rs:20:15 E0425"},
	}
	for name, outcome := range want {
		a, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		var cmd, out string
		for _, f := range a.Files {
			switch f.Name {
			case "command":
				cmd = strings.TrimSpace(string(f.Data))
			case "output":
				out = string(f.Data)
			}
		}
		r := ReadRun(cmd, out)
		if got := r.Outcome(NoExit); got != outcome {
			t.Errorf("%s: %q, want %q", name, got, outcome)
		}
		if want, ok := names[name]; ok {
			var got []string
			for _, f := range r.Failing {
				got = append(got, f.Name)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s: failing %q, want %q", name, got, want)
			}
		}
	}
}

// A passing run is never called failing: the vitest run of the issue that
// asked for runner counts (16 passed, exit 0) logs an error object, which
// the failure model alone took for 12 failures.
func TestPassingRunHasNoFailures(t *testing.T) {
	var b strings.Builder
	b.WriteString("\n RUN  v4.0.18 /home/dev/app\n\n")
	for i := range 40 {
		b.WriteString("stdout | test/media.test.js > media > falls back\n")
		b.WriteString("OverconstrainedError: [Function]\n    at getUserMedia (src/media.js:12:7)\n")
		b.WriteString("Error: camera busy\n")
		if i%3 == 0 {
			b.WriteString(" ✓ test/media.test.js (4 tests) 12ms\n")
		}
	}
	b.WriteString("\n Test Files  4 passed (4)\n      Tests  16 passed (16)\n   Start at  10:00:00\n   Duration  1.2s\n")
	it := Item{ID: "v", Tool: "Bash", Input: "npx vitest run 2>&1", Text: b.String(), Exit: 0}
	view, st := View(it, budget)
	if strings.Contains(view, "failure line") || st.Failures != 0 || !strings.Contains(view, "vitest reports 0 failed, 16 passed (L") {
		t.Errorf("a passing run called failing (%d failure lines):\n%s", st.Failures, view)
	}
	if _, count := Failures(it.Text, -1); count.Lines == 0 {
		t.Fatal("the failure model sees no failure lines: the test proves nothing")
	}
	// Exit status 1 with no failure counted: not passing, and said so.
	it.Exit = 1
	view, _ = View(it, budget)
	if !strings.Contains(view, "vitest reports 0 failed, 16 passed") || !strings.Contains(view, "yet exit status 1") || !strings.Contains(view, "failure lines") {
		t.Errorf("exit 1:\n%s", view)
	}
}

func TestCounts(t *testing.T) {
	for in, want := range map[string]map[string]int{
		"2 failed, 60 passed, 1 skipped in 0.12s":   {"failed": 2, "passed": 60, "skipped": 1, "in": 0, "s": 12},
		"Tests  2 failed | 60 passed (62)":          {"failed": 2, "passed": 60},
		"FAILED (failures=2, errors=1)":             {"failures": 2, "errors": 1},
		"Tests run: 3, Failures: 1, Errors: 0":      {"run": 3, "failures": 1, "errors": 0},
		"14 doctests, 410 tests, 0 failures":        {"doctests": 14, "tests": 410, "failures": 0},
		"Tests:       1 failed, 3 passed, 4 total":  {"tests": 1, "failed": 1, "passed": 3, "total": 4},
		"test result: ok. 2 passed; 0 failed; 0 ig": {"passed": 2, "failed": 0, "ig": 0},
	} {
		got := counts(in)
		for k, v := range want {
			if k == "tests" && in[0] == 'T' {
				continue // "Tests: 1 failed": the 1 is the failed count's
			}
			if got[k] != v {
				t.Errorf("counts(%q)[%q] = %d, want %d (%v)", in, k, got[k], v, got)
			}
		}
	}
}

func FuzzReadRun(f *testing.F) {
	f.Add("go test ./...", "--- FAIL: TestX (0.00s)\nFAIL\tpkg\t0.1s\n", 1)
	f.Add("pytest", "== 1 failed, 2 passed in 0.1s ==\nFAILED a.py::t[x - y] - e\n", 1)
	f.Add("", "  1) Suite\n       t:\n  2 passing (1ms)\n  1 failing\n\n  1) a\n", 1)
	f.Add("", "Tests run: 3, Failures: 1\n1) t(C)\n", 1)
	f.Fuzz(func(t *testing.T, command, text string, exit int) {
		r := ReadRun(command, text)
		if r.Failed < 0 || len(r.Failing) > maxNamed {
			t.Fatalf("%+v", r)
		}
		for _, n := range r.Failing {
			if n.Line.N < 1 || n.Line.N > strings.Count(text, "\n")+1 {
				t.Fatalf("line %d out of range", n.Line.N)
			}
		}
		_ = r.Headline(exit)
	})
}

// BenchmarkReadRun1MB: the runner's account of the 1 MB Go test log of
// BenchmarkFailures1MB, as every large output's view reads it.
//
//	go test -run '^$' -bench 'ReadRun|Failures1MB' ./internal/swap
func BenchmarkReadRun1MB(b *testing.B) {
	var sb strings.Builder
	for n := 0; sb.Len() < 1<<20; n++ {
		fmt.Fprintf(&sb, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n    handler_test.go:%d: request %d served in 3ms\n", n, n, n, n)
		if n == 5000 || n == 9000 {
			fmt.Fprintf(&sb, "--- FAIL: TestFail%d (0.01s)\n    handler_test.go:%d: got 500, want 200\n", n, n)
		}
	}
	sb.WriteString("FAIL\nFAIL\texample.com/x\t1.2s\n")
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if r := ReadRun("go test ./...", text); r.Failed != 2 {
			b.Fatalf("%+v", r)
		}
	}
}
