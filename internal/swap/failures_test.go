package swap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/config"
)

func TestSignalsFailure(t *testing.T) {
	yes := []string{
		"--- FAIL: TestStore (0.00s)",
		"FAIL\tgithub.com/x/y\t0.012s",
		"FAIL github.com/x/y [build failed]",
		"panic: runtime error: index out of range [3] with length 3",
		"./store.go:42:7: undefined: Foo",
		"store_test.go:12: got 3, want 4 (test failed)",
		"Traceback (most recent call last):",
		"ValueError: invalid literal for int() with base 10: 'x'",
		"E       assert 3 == 4",
		"FAILED tests/test_x.py::test_y - AssertionError: boom",
		"  1) test mount renders page (SpotterWeb.ProjectReviewLiveTest)",
		"     ** (RuntimeError) no :secret_key_base configuration found",
		"== Compilation error in file lib/x.ex ==",
		"5 tests, 1 failure",
		"error[E0425]: cannot find value `x` in this scope",
		"src/main.c:3:5: error: expected ';' before 'return'",
		"app.ts(12,5): error TS2304: Cannot find name 'foo'.",
		"npm ERR! code ELIFECYCLE",
		"✘ [ERROR] Could not resolve \"js/app.js\"",
		"  ● Suite › renders",
		"  ✕ adds 1 + 2 (5 ms)",
		"[ERROR] Failed to execute goal org.apache.maven.plugins",
		"Exception in thread \"main\" java.lang.NullPointerException",
		"java.lang.IllegalStateException: boom",
		"make: *** [Makefile:12: all] Error 2",
		"exit status 2",
		"Process exited with code 137",
		"Segmentation fault (core dumped)",
		"bash: foo: command not found",
		"fatal: not a git repository (or any of the parent directories): .git",
		"thread 'main' panicked at src/main.rs:2:5:",
		"not ok 3 - handles empty input",
		"cat: x: No such file or directory",
	}
	no := []string{
		"",
		"ok  \tgithub.com/x/y\t0.012s",
		"--- PASS: TestStore (0.00s)",
		"PASS",
		"=== RUN   TestStore",
		"Compiling 4 files (.ex)",
		"Finished in 0.5 seconds (0.1s async, 0.4s sync)",
		"5 tests, 0 failures",
		"Found 0 errors.",
		"no errors found",
		"errors: 0, warnings: 2",
		"stderr: \"\"",
		"type ErrorBoundary struct{}",
		"warning: variable \"messages\" is unused",
		"Tests: 12 passed, 12 total",
		"  ✓ adds 1 + 2 (5 ms)",
		"exit status 0",
		"handleErrors(ctx)",
	}
	for _, l := range yes {
		if !SignalsFailure(l) {
			t.Errorf("missed failure: %q", l)
		}
	}
	for _, l := range no {
		if SignalsFailure(l) {
			t.Errorf("false failure: %q", l)
		}
	}
}

func TestFailureLinesCountsAll(t *testing.T) {
	var lines []string
	for i := range 50 {
		lines = append(lines, "ok line", "--- FAIL: TestX"+strings.Repeat("y", i))
	}
	first, total := FailureLines(strings.Join(lines, "\n")+"\n", 10)
	if total != 50 || len(first) != 10 || first[0].N != 2 || first[9].N != 20 {
		t.Fatalf("first %v total %d", first, total)
	}
}

func TestDecide(t *testing.T) {
	cfg := config.Default()
	for _, tc := range []struct {
		call Call
		text string
		want string
	}{
		{Call{Tool: "Bash", Command: "go test ./..."}, strings.Repeat("x", 6145), ""},
		{Call{Tool: "Bash", Command: "go test ./..."}, strings.Repeat("x", 6144), "below the threshold"},
		{Call{Tool: "Bash", Command: "git status"}, strings.Repeat("x", 9000), "trivial command"},
		{Call{Tool: "Bash", Command: "cd sub && git status"}, strings.Repeat("x", 9000), "trivial command"},
		{Call{Tool: "Bash", Command: "cd sub && npm test"}, strings.Repeat("x", 9000), ""},
		{Call{Tool: "Bash", Command: "ctxkeep show abc"}, strings.Repeat("x", 9000), "trivial command"},
		{Call{Tool: "Read", FilePath: "/p/CLAUDE.md"}, strings.Repeat("x", 9000), "file that must arrive whole"},
		{Call{Tool: "Read", FilePath: "/p/package-lock.json"}, strings.Repeat("x", 9000), "file that must arrive whole"},
		{Call{Tool: "Read", FilePath: "/s/tool-results/ctxkeep-abc.txt"}, strings.Repeat("x", 9000), "ctxkeep's own stored content"},
		{Call{Tool: "Read", FilePath: "/p/main.go", Agent: true}, strings.Repeat("x", 9000), "subagent call"},
		// 7,000 characters in 1,000 lines are 7,000 + 1,000 × 5 once numbered.
		{Call{Tool: "Read", FilePath: "/p/main.go"}, strings.Repeat("abcdef\n", 1000), ""},
		{Call{Tool: "Read", FilePath: "/p/main.go"}, strings.Repeat("abcdef\n", 600), "below the threshold"},
		{Call{Tool: "Bash", Command: Wrap("go test", "/bin/ctxkeep", "/s/t")}, strings.Repeat("x", 9000), "already captured by the wrapper"},
	} {
		if got := Decide(tc.call, tc.text, cfg); got != tc.want {
			t.Errorf("Decide(%+v, %d chars) = %q, want %q", tc.call, len(tc.text), got, tc.want)
		}
	}
}

// Every line a rule matches holds an anchor: the prefilter never hides a
// failure.
func TestAnchorsCoverEveryRule(t *testing.T) {
	for _, l := range append(append(append(append([]string{"E   x", "  12) test x", "./a.go:1:2: y", "XError: y", "a.b.MyException"},
		linePrefixes...), words...), phrases...), exitPhrases...) {
		l := l + " 3"
		if SignalsFailure(l) && !hasAnchor(l) {
			t.Errorf("%q signals a failure without an anchor", l)
		}
	}
}

func FuzzFailureLines(f *testing.F) {
	f.Add("ok\n--- FAIL: x\nE   assert\n  1) test y\n")
	f.Add("a.go:1:2: undefined\r\nexit status 2")
	f.Fuzz(func(t *testing.T, text string) {
		lines := splitLines(text)
		_, total := FailureLines(text, 5)
		want := 0
		every := anchorSet{^uint64(0), ^uint64(0)}
		for _, l := range lines {
			if tr := strings.TrimSpace(l); tr != "" && matchesRules(l, tr, every) != SignalsFailure(l) {
				t.Fatalf("%q: the anchors change the verdict", l)
			}
			if SignalsFailure(l) {
				want++
				if !hasAnchor(l) {
					t.Fatalf("%q: failure without an anchor", l)
				}
			}
		}
		if total != want {
			t.Fatalf("FailureLines counts %d, the rules %d", total, want)
		}
	})
}

// BenchmarkFailureLines1MB: the failure-line scan of a 1 MB test log with
// two failures, as PostToolUse runs it on every large output.
//
//	go test -run '^$' -bench FailureLines1MB ./internal/swap
func BenchmarkFailureLines1MB(b *testing.B) {
	var sb strings.Builder
	for n := 0; sb.Len() < 1<<20; n++ {
		fmt.Fprintf(&sb, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n    handler_test.go:%d: request %d served in 3ms\n", n, n, n, n)
		if n == 5000 || n == 9000 {
			fmt.Fprintf(&sb, "--- FAIL: TestCase%d (0.01s)\n    handler_test.go:%d: got 500, want 200\n", n, n)
		}
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, n := FailureLines(text, 10); n != 2 {
			b.Fatalf("%d failure lines", n)
		}
	}
}
