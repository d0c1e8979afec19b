package swap

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctxkeep/ctxkeep/internal/config"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/failures")

// TestFailureCorpus: for every output in testdata/failures (real ones from
// public sessions, and one per ecosystem written after the tools' own
// output), the failures found, each marker with its causes, are those in
// its want section; a passing run or prose ("pass-…", "prose-…") has none.
//
//	go test ./internal/swap -run FailureCorpus -update   # after a change to the rules, then review the diff
func TestFailureCorpus(t *testing.T) {
	paths, _ := filepath.Glob("testdata/failures/*.txtar")
	if len(paths) < 25 {
		t.Fatalf("only %d cases in testdata/failures", len(paths))
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil || len(ar.Files) != 2 || ar.Files[0].Name != "output" || ar.Files[1].Name != "want" {
				t.Fatalf("want an output and a want section: %v", err)
			}
			fs, count := Failures(string(ar.Files[0].Data), -1)
			got := renderFailures(fs)
			if clean := strings.HasPrefix(name, "pass-") || strings.HasPrefix(name, "prose-"); clean != (len(fs) == 0) {
				t.Errorf("%d failures in a case named %s:\n%s", len(fs), name, got)
			}
			if count.Failures != len(fs) || count.Lines != len(strings.Split(strings.TrimSuffix(got, "\n"), "\n")) && len(fs) > 0 {
				t.Errorf("count %+v for:\n%s", count, got)
			}
			if *update {
				ar.Files[1].Data = []byte(got)
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(ar.Files[1].Data); got != want {
				t.Errorf("failures:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// renderFailures writes each marker, then its causes indented, the first
// cause marked with a star; plain text, cut at 120 bytes.
func renderFailures(fs []Failure) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "L%d: %s\n", f.Marker.N, cut(plain(f.Marker.Text), 120))
		first, _ := f.FirstCause()
		for _, c := range f.Causes {
			star := ""
			if c == first {
				star = "*"
			}
			fmt.Fprintf(&b, "  L%d%s: %s\n", c.N, star, cut(plain(c.Text), 120))
		}
	}
	return b.String()
}

// TestMarkers: single lines, as tools print them.
func TestMarkers(t *testing.T) {
	yes := []string{
		"--- FAIL: TestStore (0.00s)",
		"FAIL\tgithub.com/x/y\t0.012s",
		"FAIL github.com/x/y [build failed]",
		"panic: runtime error: index out of range [3] with length 3",
		"./store.go:42:7: undefined: Foo",
		"Traceback (most recent call last):",
		"ValueError: invalid literal for int() with base 10: 'x'",
		"E       assert 3 == 4",
		"FAILED tests/test_x.py::test_y - AssertionError: boom",
		"  1) test mount renders page (SpotterWeb.ProjectReviewLiveTest)",
		"     ** (RuntimeError) no :secret_key_base configuration found",
		"== Compilation error in file lib/x.ex ==",
		"5 tests, 1 failure",
		"14 doctests, 297 tests, 11 failures",
		"Tests:       1 failed, 3 passed, 4 total",
		"      Tests  1 failed | 3 passed (4)",
		"FAILED (failures=2)",
		"Tests run: 5, Failures: 0, Errors: 1, Skipped: 0",
		"test result: FAILED. 1 passed; 1 failed; 0 ignored",
		"Found 3 errors in 2 files.",
		"1 error",
		"error[E0425]: cannot find value `x` in this scope",
		"src/main.c:3:5: error: expected ';' before 'return'",
		"app.ts(12,5): error TS2304: Cannot find name 'foo'.",
		"app.ts:12:5 - error TS2304: Cannot find name 'foo'.",
		"  12:5  error  'x' is not defined  no-undef",
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
		"zsh: command not found: foo",
		"fatal: not a git repository (or any of the parent directories): .git",
		"thread 'main' panicked at src/main.rs:2:5:",
		"test tests::it_fails ... FAILED",
		"not ok 3 - handles empty input",
		"cat: x: No such file or directory",
		"Pre-commit validation failed:",
		"Found 3 errors.",
		"10 examples, 2 failures",
		"3 errors. Exiting.",
		"Error: Process completed with exit code 1.",
		"subprocess.CalledProcessError: Command '['make']' returned non-zero exit status 2.",
		"\x1b[31merror:\x1b[0m API request failed",
		"Rebasing (1/2)\rerror: could not apply fb89908... fix",
	}
	no := []string{
		"",
		"ok  \tgithub.com/x/y\t0.012s",
		"--- PASS: TestStore (0.00s)",
		"PASS",
		"=== RUN   TestStore",
		"    store_test.go:12: served in 3ms",
		"Compiling 4 files (.ex)",
		"Finished in 0.5 seconds (0.1s async, 0.4s sync)",
		"5 tests, 0 failures",
		"test result: ok. 3 passed; 0 failed; 0 ignored",
		"Found 0 errors.",
		"no errors found",
		"errors: 0, warnings: 2",
		"=================================== FAILURES ===================================",
		"stderr: \"\"",
		"type ErrorBoundary struct{}",
		"warning: variable \"messages\" is unused",
		"Tests: 12 passed, 12 total",
		"  ✓ adds 1 + 2 (5 ms)",
		"  ● Console",
		"exit status 0",
		"handleErrors(ctx)",
		"- API/network failure must not block Claude startup.",
		"- Controller, builder, and LiveView tests cover success and failure paths.",
		"handle errors gracefully",
		"Fix 2 failing tests before the release.",
		"RuntimeError is raised when the queue is closed.",
		"1) Read the failing test first.",
		"    {:error, reason} ->",
		"21:33:40.227 [warning] WaitingSummary: LLM call failed: timeout",
		// ls -l of a code folder: a time or a year before a name, not a count.
		"-rw-r--r--  1 root root 16903 Nov 26 23:37 failures.go",
		"drwxr-xr-x  2 root root  4096 Nov 26 23:37 failures",
		"-rw-r--r--  1 u    g      120 Nov 26  2025 errors",
		"-rw-r--r--  1 u    g      120 26 Nov  2025 errors.py",
		"2 errors.go",
		"x_test.go:88:\t\tt.Fatalf(\"exit status 1\")",
		"    want: 'Exit code 2'",
	}
	for _, l := range yes {
		if classify(l) == noMarker {
			t.Errorf("missed failure: %q", l)
		}
	}
	for _, l := range no {
		if k := classify(l); k != noMarker {
			t.Errorf("false failure (%d): %q", k, l)
		}
	}
}

// The first cause of each failure comes before the marker of one more,
// the markers of failures without a cause come next, and the lines come
// back in the order of the output.
func TestKeyLinesPreferFirstCauses(t *testing.T) {
	text := "--- FAIL: TestP (0.00s)\n" +
		"--- FAIL: TestA (0.00s)\n" +
		"    a_test.go:1: want 1\n" +
		"    a_test.go:2: want 2\n" +
		"--- FAIL: TestB (0.00s)\n" +
		"    b_test.go:1: want 3\n" +
		"FAIL\n"
	fs, count := Failures(text, -1)
	if count.Failures != 4 || count.Lines != 7 || len(fs) != 4 {
		t.Fatalf("%+v\n%s", count, renderFailures(fs))
	}
	numbers := func(ls []Line) (ns []int) {
		for _, l := range ls {
			ns = append(ns, l.N)
		}
		return ns
	}
	for n, want := range map[int][]int{
		0: nil, 1: {2}, 2: {2, 3}, 3: {2, 3, 5}, 4: {2, 3, 5, 6}, 5: {1, 2, 3, 5, 6}, 6: {1, 2, 3, 5, 6, 7}, 7: {1, 2, 3, 4, 5, 6, 7}, 99: {1, 2, 3, 4, 5, 6, 7},
	} {
		if got := numbers(KeyLines(fs, n)); !slices.Equal(got, want) {
			t.Errorf("KeyLines(%d) = %v, want %v", n, got, want)
		}
	}
	if got := numbers(fs[1].Lines()); !slices.Equal(got, []int{2, 3, 4}) {
		t.Errorf("Lines() = %v", got)
	}
}

// go test -v logs a test's lines before its "--- FAIL"; they are its
// causes, and Lines() puts them back in order.
func TestGoVerboseLogComesFirst(t *testing.T) {
	text := "=== RUN   TestRefund\n    refund_test.go:42: got 1999 want 2000\n--- FAIL: TestRefund (0.00s)\nFAIL\n"
	fs, _ := Failures(text, -1)
	c, ok := fs[0].FirstCause()
	if len(fs) != 2 || !ok || c.N != 2 || fs[0].Marker.N != 3 {
		t.Fatalf("%s", renderFailures(fs))
	}
	if ls := fs[0].Lines(); ls[0].N != 2 || ls[1].N != 3 {
		t.Errorf("Lines() = %v", ls)
	}
}

func TestFailuresCountsAll(t *testing.T) {
	var lines []string
	for i := range 50 {
		lines = append(lines, "ok line", "--- FAIL: TestX"+strings.Repeat("y", i))
	}
	first, count := Failures(strings.Join(lines, "\n")+"\n", 10)
	if count.Failures != 50 || count.Lines != 50 || len(first) != 10 || first[0].Marker.N != 2 || first[9].Marker.N != 20 {
		t.Fatalf("first %v count %+v", first, count)
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
		{Call{Tool: "Bash", Command: "git branch -a"}, strings.Repeat("x", 9000), "trivial command"},
		{Call{Tool: "Bash", Command: "cd sub && git branch -a"}, strings.Repeat("x", 9000), "trivial command"},
		{Call{Tool: "Bash", Command: "cd sub && npm test"}, strings.Repeat("x", 9000), ""},
		{Call{Tool: "Bash", Command: "ctxkeep show abc"}, strings.Repeat("x", 9000), "trivial command"},
		{Call{Tool: "Read", FilePath: "/p/CLAUDE.md"}, strings.Repeat("x", 9000), "file that must arrive whole"},
		{Call{Tool: "Read", FilePath: "/p/package-lock.json"}, strings.Repeat("x", 9000), "file that must arrive whole"},
		{Call{Tool: "Read", FilePath: "/s/tool-results/ctxkeep-abc.txt"}, strings.Repeat("x", 9000), "ctxkeep's own stored content"},
		{Call{Tool: "mcp__ctxkeep__show"}, strings.Repeat("x", 90000), "ctxkeep's own stored content"},
		{Call{Tool: "mcp__plugin_ctxkeep_ctxkeep__recall"}, strings.Repeat("x", 90000), "ctxkeep's own stored content"},
		{Call{Tool: "mcp__ctxkeeper__show"}, strings.Repeat("x", 90000), ""},
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

// Every rule's lines hold its anchor: the pre-scan never hides a failure.
func TestAnchorsCoverEveryRule(t *testing.T) {
	samples := []string{"E   x", "  12) test x", "./a.go:1:2: y", "XError: y", "a.b.MyException", "___ test_x ___", "12:5  error  x",
		"Pipeline failed: x", "4 failures", "failures=2", "Error"}
	for _, list := range [][]string{openerPrefixes, messagePrefixes, openerPhrases, exitPhrases} {
		samples = append(samples, list...)
	}
	for _, l := range samples {
		l += " 3"
		if classify(l) != noMarker && !candidates(l, []string{l})[0] {
			t.Errorf("%q marks a failure the pre-scan does not see", l)
		}
	}
}

func FuzzFailures(f *testing.F) {
	f.Add("ok\n--- FAIL: x\nE   assert\n  1) test y\n")
	f.Add("a.go:1:2: undefined\r\nexit status 2")
	f.Add("=== RUN   TestA\n    a_test.go:3: boom\n        more\n--- FAIL: TestA (0.00s)\npanic: x [recovered]\n\tpanic: x\n\ngoroutine 1 [running]:\nmain.f()\n\t/p/m.go:3 +0x1\n")
	f.Add("Traceback (most recent call last):\n  File \"x\", line 1\nValueError: v\n5 tests, 2 failures\n\x1b[31merror:\x1b[0m x\r\n")
	f.Add("  ● a › b\n\n    Expected: 1\n    Received: 2\n\n      at Object.<anonymous> (a.test.js:3:4)\n- Expected\n+ Received\n- 1\n+ 2\n")
	f.Add("@@ -1,2 +1,3 @@\n-exit status 1\n+--- FAIL: x\n \n\\ No newline\n--- FAIL: TestB (0.00s)\n@@ -9 +9,0 @@\n-panic: y\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := splitLines(text)
		fs, count := Failures(text, -1)
		marked := candidates(text, lines)
		every := anchorSet{^uint64(0), ^uint64(0)}
		for i, l := range lines {
			p := plain(l)
			k := classify(l)
			if p != "" && matchRules(p, every) != k {
				t.Fatalf("%q: the anchors change the verdict", l)
			}
			if k != noMarker && !marked[i] {
				t.Fatalf("%q: a marker the pre-scan missed", l)
			}
		}
		seen := map[int]bool{}
		n := 0
		for _, f := range fs {
			if classify(f.Marker.Text) == noMarker {
				t.Fatalf("marker %q is no marker", f.Marker.Text)
			}
			ls := f.Lines()
			for k, l := range ls {
				if l.N < 1 || l.N > len(lines) || lines[l.N-1] != l.Text || seen[l.N] || k > 0 && ls[k-1].N >= l.N {
					t.Fatalf("line %d of %s: out of place or twice", l.N, renderFailures(fs))
				}
				seen[l.N] = true
			}
			n += len(ls)
		}
		if count.Failures != len(fs) || count.Lines != n {
			t.Fatalf("count %+v, found %d failures, %d lines", count, len(fs), n)
		}
		first, _ := Failures(text, 3)
		if len(first) != min(3, len(fs)) || len(first) > 0 && !slices.EqualFunc(first, fs[:len(first)], failureEqual) {
			t.Fatalf("the first 3 failures differ from the first 3 of all")
		}
		key := KeyLines(fs, 2*len(fs))
		for _, f := range fs {
			c, ok := f.FirstCause()
			if !slices.Contains(key, f.Marker) || ok && !slices.Contains(key, c) {
				t.Fatalf("KeyLines(%d) lacks the marker or first cause of line %d", 2*len(fs), f.Marker.N)
			}
		}
	})
}

func failureEqual(a, b Failure) bool {
	return a.Marker == b.Marker && a.first == b.first && slices.Equal(a.Causes, b.Causes)
}

// BenchmarkFailures1MB: the failure scan of a 1 MB Go test log with two
// failures among thousands of passing tests' log lines, as PostToolUse
// runs it on every large output.
//
//	go test -run '^$' -bench Failures1MB ./internal/swap
func BenchmarkFailures1MB(b *testing.B) {
	var sb strings.Builder
	for n := 0; sb.Len() < 1<<20; n++ {
		fmt.Fprintf(&sb, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n    handler_test.go:%d: request %d served in 3ms\n", n, n, n, n)
		if n == 5000 || n == 9000 {
			fmt.Fprintf(&sb, "--- FAIL: TestFail%d (0.01s)\n    handler_test.go:%d: got 500, want 200\n", n, n)
		}
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		fs, n := Failures(text, 10)
		if c, _ := fs[0].FirstCause(); n.Failures != 2 || !strings.HasSuffix(c.Text, "got 500, want 200") {
			b.Fatalf("%+v, first cause %q", n, c.Text)
		}
	}
}

// BenchmarkFailures1MBAllFailing: the worst case, 1 MB of ExUnit failures
// and their causes, nothing else (every line is read by the rules and
// every block for causes).
//
//	go test -run '^$' -bench Failures1MB ./internal/swap
func BenchmarkFailures1MBAllFailing(b *testing.B) {
	var sb strings.Builder
	for n := 1; sb.Len() < 1<<20; n++ {
		fmt.Fprintf(&sb, "  %d) test refund %d (RefundTest)\n     test/refund_test.exs:%d\n     Assertion with == failed\n     code:  assert refund(%d) == 2000\n     left:  1999\n     right: 2000\n\n", n, n, n, n)
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, n := Failures(text, 10); n.Lines != 6*n.Failures {
			b.Fatalf("%+v", n)
		}
	}
}

func TestOver(t *testing.T) {
	for _, c := range []struct {
		text      string
		threshold int
		want      bool
	}{
		{strings.Repeat("x", 10), 10, false},
		{strings.Repeat("x", 11), 10, true},
		{strings.Repeat("é", 10), 10, false}, // 20 bytes, 10 characters
		{strings.Repeat("é", 11), 10, true},
		{strings.Repeat("😀", 10), 10, false}, // 40 bytes
		{strings.Repeat("😀", 10) + "x", 10, true},
		{"", 0, false},
	} {
		if got := Over(c.text, c.threshold); got != c.want {
			t.Errorf("Over(%d bytes, %d) = %v, want %v", len(c.text), c.threshold, got, c.want)
		}
	}
}

// What a diff adds or removes is content, whatever it says; a hunk ends
// where its header's counts say, so a failure printed after one is found.
func TestDiffContentIsNotAFailure(t *testing.T) {
	diff := "diff --git a/x_test.go b/x_test.go\nindex 1..2 100644\n--- a/x_test.go\n+++ b/x_test.go\n" +
		"@@ -10,3 +10,5 @@ func TestX(t *testing.T) {\n \tout := run()\n-\twant := \"exit status 1\"\n+\twant := \"Process exited with code 1\"\n" +
		"+\tif !strings.Contains(out, \"--- FAIL: TestX\") {\n \t\tt.Fatal(out)\n\\ No newline at end of file\n" +
		"@@ -40 +42 @@\n-panic: old\n+panic: new\n"
	if fs, c := Failures(diff, 10); c.Failures != 0 {
		t.Fatalf("a diff of test code has %d failures: %+v", c.Failures, fs)
	}
	after := "@@ -1,2 +1,2 @@\n-a\n+b\n c\n--- FAIL: TestX (0.00s)\n    x_test.go:9: got 1, want 2\nFAIL\nexit status 1\n"
	if fs, c := Failures(after, 10); c.Failures == 0 || fs[0].Marker.Text != "--- FAIL: TestX (0.00s)" {
		t.Fatalf("the failure after the hunk: %+v, %+v", fs, c)
	}
	if _, c := Failures("fatal: bad revision 'nosuch'\n"+diff, 10); c.Failures != 1 {
		t.Fatalf("a git error before the diff: %d failures", c.Failures)
	}
}
