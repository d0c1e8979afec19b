package swap

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var budget = Budget{Chars: 2500, Summary: 500, KeyLines: 10}

// failureTitle is the title of a view's failures.
var failureTitle = regexp.MustCompile(`(?m)^\d+ failure lines?(, with their causes)?:$`)

// buildLog is a long test run with failures in the middle.
func buildLog(lines int, failAt ...int) string {
	fail := map[int]bool{}
	for _, n := range failAt {
		fail[n] = true
	}
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		if fail[i] {
			fmt.Fprintf(&b, "--- FAIL: TestCase%d (0.01s)\n", i)
		} else {
			fmt.Fprintf(&b, "=== RUN   TestCase%d\n", i)
		}
	}
	b.WriteString("FAIL\tgithub.com/x/y\t3.2s\n")
	return b.String()
}

func TestBashViewShowsFailuresTailAndRetrieval(t *testing.T) {
	text := buildLog(5000, 1200, 2500, 4000)
	it := Item{ID: "3f9a12bc07de", Tool: "Bash", Input: "go test ./...", Text: text, Exit: 1, CopyPath: "/s/tool-results/ctxkeep-3f9a12bc07de.txt"}
	view, st := View(it, budget)
	if len(view) > budget.Chars {
		t.Fatalf("view is %d bytes, budget %d", len(view), budget.Chars)
	}
	for _, want := range []string{
		"[ctxkeep] Bash output swapped out of the context, kept exactly as id 3f9a12bc07de",
		"exit status 1", "call: go test ./...",
		"go test reports 3 failed (L5001: \"FAIL\\tgithub.com/x/y\\t3.2s\").\n",
		"Failing tests (3): TestCase1200 (L1200), TestCase2500 (L2500), TestCase4000 (L4000).\n",
		"4 failure lines:\n",
		"L1200: --- FAIL: TestCase1200", "L2500: --- FAIL: TestCase2500", "L4000: --- FAIL: TestCase4000", "L5001: FAIL\tgithub.com/x/y",
		"last lines:", "first lines:", "L1: === RUN   TestCase1",
		"Read /s/tool-results/ctxkeep-3f9a12bc07de.txt with offset/limit", "ctxkeep show 3f9a12bc07de --lines A:B",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if st.Chars != len(text) || st.Lines != 5001 || st.Failures != 4 || st.ViewChars != utf8.RuneCountInString(view) || st.Binary {
		t.Errorf("stats = %+v", st)
	}
	if !strings.Contains(st.Brief, "5,001 lines, exit 1, go test: 3 failed, 4 failure lines; last: FAIL") {
		t.Errorf("brief = %q", st.Brief)
	}
}

func TestFailuresBeyondTheCapAreCounted(t *testing.T) {
	var fails []int
	for i := 10; i <= 3000; i += 10 {
		fails = append(fails, i)
	}
	text := buildLog(3000, fails...)
	view, st := View(Item{ID: "abc", Tool: "Bash", Text: text, Exit: 1}, budget)
	if !strings.Contains(view, "go test reports 300 failed") || !strings.Contains(view, "TestCase100 (L100), and 290 more.\n") {
		t.Errorf("the runner's count is not the view's:\n%s", view)
	}
	section := view[strings.Index(view, "301 failure lines:"):strings.Index(view, "  … ")]
	shown := strings.Count(section, "--- FAIL")
	if st.Failures != 301 || shown == 0 || shown > budget.KeyLines {
		t.Fatalf("%d failures, %d shown", st.Failures, shown)
	}
	if !strings.Contains(view, fmt.Sprintf("… %d more failure lines: `ctxkeep show abc --failures`", 301-shown)) {
		t.Errorf("no count of the rest:\n%s", view)
	}
	if len(view) > budget.Chars {
		t.Errorf("view %d > budget", len(view))
	}
}

// With ctxkeep's MCP tools in the session, a view names the tool and the
// exact input to give it, for the whole output and for the failures it
// could not list; within the same budget.
func TestViewNamesTheTools(t *testing.T) {
	var fails []int
	for i := 10; i <= 3000; i += 10 {
		fails = append(fails, i)
	}
	for _, tools := range []string{UserTools, PluginTools} {
		b := budget
		b.Retrieval = Retrieval{Tools: tools}
		view, _ := View(Item{ID: "3f9a12bc07de", Tool: "Bash", Text: buildLog(3000, fails...), Exit: 1}, b)
		for _, want := range []string{
			"Get any part back exactly: call `" + tools + `show {"id":"3f9a12bc07de","lines":"A:B"}` + "` (or grep RE with context N, failures, head N, tail N).\n",
			"more failure lines: `" + tools + `show {"id":"3f9a12bc07de","failures":true}` + "`\n",
		} {
			if !strings.Contains(view, want) {
				t.Errorf("view lacks %q:\n%s", want, view)
			}
		}
		if strings.Contains(view, "ctxkeep show") || len(view) > b.Chars {
			t.Errorf("%d bytes, naming the command line:\n%s", len(view), view)
		}
	}
}

func TestViewFitsEveryBudget(t *testing.T) {
	text := buildLog(2000, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17) + strings.Repeat("x", 5000) + "\n"
	for _, chars := range []int{1000, 1500, 2500, 4000, 10000} {
		b := Budget{Chars: chars, Summary: 500, KeyLines: 10, Retrieval: Retrieval{Tools: []string{"", UserTools, PluginTools}[chars%3]}}
		for _, tool := range []string{"Bash", "Read", "Grep", "Glob", "WebFetch", "mcp__a__b"} {
			it := Item{ID: "abcdef123456", Tool: tool, Input: strings.Repeat("long input ", 100), Text: text, Exit: NoExit, FilePath: "/p/x.go", CopyPath: "/s/tool-results/ctxkeep-abcdef123456.txt"}
			view, _ := View(it, b)
			if len(view) > chars {
				t.Errorf("%s at budget %d: %d bytes", tool, chars, len(view))
			}
			if !strings.Contains(view, "abcdef123456") || HasFailures(tool) != failureTitle.MatchString(view) {
				t.Errorf("%s at budget %d: lost the id or the failures:\n%s", tool, chars, view)
			}
		}
	}
}

func TestReadViewHasOutlineAndFileLineNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("package store\n\n")
	for i := range 300 {
		fmt.Fprintf(&b, "// F%d does things.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i)
	}
	it := Item{ID: "abc", Tool: "Read", Text: b.String(), Exit: NoExit, FilePath: "/p/store.go", Input: "/p/store.go"}
	view, _ := View(it, budget)
	for _, want := range []string{"Read of /p/store.go", "outline (go, 300 declarations):", "L4: func F0(x int) int", "Lines of the file are marked L<n>", "Read /p/store.go again with offset and limit"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if len(view) > budget.Chars {
		t.Errorf("view %d bytes", len(view))
	}
}

func TestGrepAndGlobSummaries(t *testing.T) {
	var g strings.Builder
	for i := range 400 {
		fmt.Fprintf(&g, "src/file%d.ts:%d:// TODO item %d\n", i%7, i, i)
	}
	view, _ := View(Item{ID: "g", Tool: "Grep", Text: g.String(), Exit: NoExit}, budget)
	if !strings.Contains(view, "400 matching lines in 7 files; most matches: src/file0.ts (58)") {
		t.Errorf("grep view:\n%s", view)
	}
	// Gemini CLI's grep_search groups the matches by file.
	g.Reset()
	g.WriteString("Found 300 matches for pattern \"TODO\" in the workspace directory:\n")
	for f := range 3 {
		fmt.Fprintf(&g, "---\nFile: src/file%d.ts\n", f)
		for i := range 100 + (f-1)*20 {
			fmt.Fprintf(&g, "L%d: // TODO item %d\n", i+1, i)
		}
	}
	g.WriteString("---\n")
	view, _ = View(Item{ID: "g", Tool: "Grep", Text: g.String(), Exit: NoExit}, budget)
	if !strings.Contains(view, "300 matching lines in 3 files; most matches: src/file2.ts (120), src/file1.ts (100), src/file0.ts (80)") {
		t.Errorf("Gemini grep view:\n%s", view)
	}
	var l strings.Builder
	for i := range 300 {
		fmt.Fprintf(&l, "src/components/c%d.tsx\n", i)
		fmt.Fprintf(&l, "test/unit/t%d.go\n", i)
	}
	view, _ = View(Item{ID: "l", Tool: "Glob", Text: l.String(), Exit: NoExit}, budget)
	if !strings.Contains(view, "600 files; by extension: .go (300), .tsx (300); by folder: src/components (300), test/unit (300)") {
		t.Errorf("glob view:\n%s", view)
	}
}

func TestBinaryOutput(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00\xff", 5000)
	view, st := View(Item{ID: "b", Tool: "Bash", Text: png, Exit: 0}, budget)
	if !st.Binary || !strings.Contains(view, "Binary data (image/png)") || !utf8.ValidString(view) || st.Brief != "binary, 10,016 bytes" {
		t.Fatalf("binary view (%+v):\n%q", st, view)
	}
}

func FuzzView(f *testing.F) {
	f.Add("Bash", buildLog(50, 3), 1)
	f.Add("Read", "package x\nfunc F() {}\n", -1)
	f.Add("Grep", "a:1:x\nb:2:y\n", -1)
	f.Add("Glob", "a/b.go\nc/d.ts", -1)
	f.Add("mcp__s__t", "\xff\xfe\x00binary", -1)
	f.Add("Bash", strings.Repeat("é", 3000), 0)
	f.Fuzz(func(t *testing.T, tool, text string, exit int) {
		it := Item{ID: "fuzz", Tool: tool, Text: text, Exit: exit, FilePath: "/p/f.go", Input: text}
		view, st := View(it, budget)
		if len(view) > budget.Chars {
			t.Fatalf("view %d bytes > %d", len(view), budget.Chars)
		}
		if !utf8.ValidString(view) {
			t.Fatalf("view is not valid UTF-8: %q", view)
		}
		if !strings.Contains(view, "fuzz") {
			t.Fatalf("view lost its id")
		}
		if st.Binary && !strings.Contains(view, "Binary data") {
			t.Fatalf("binary output not described as binary")
		}
	})
}

// A source file or a search result is not the output of a run: a line of
// code that says "error" is not a failure.
func TestNoFailureSectionForFilesAndSearches(t *testing.T) {
	text := strings.Repeat("func f() error { return errors.New(\"FAIL\") }\n", 300)
	for _, tool := range []string{"Read", "Grep", "Glob"} {
		view, st := View(Item{ID: "x", Tool: tool, Text: text, Exit: NoExit, FilePath: "/p/f.go"}, budget)
		if st.Failures != 0 || failureTitle.MatchString(view) {
			t.Errorf("%s: %d failures:\n%s", tool, st.Failures, view)
		}
	}
}

// A failure's cause is in the view with its marker: after compaction the
// model knows what failed, not only that something did.
func TestViewKeepsTheCause(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		if i == 1500 {
			b.WriteString("=== RUN   TestCheckoutTotal\n    checkout_test.go:1500: expected 42, got 41\n--- FAIL: TestCheckoutTotal (0.00s)\n")
			continue
		}
		fmt.Fprintf(&b, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", i, i)
	}
	b.WriteString("FAIL\nFAIL\texample.com/shop\t0.2s\n")
	view, st := View(Item{ID: "c", Tool: "Bash", Text: b.String(), Exit: 1}, budget)
	for _, want := range []string{"go test reports 1 failed, 2999 passed (L6003: ", "Failing tests (1): TestCheckoutTotal (L3001).\n", "4 failure lines, with their causes:\n", "L3000:     checkout_test.go:1500: expected 42, got 41\n", "L3001: --- FAIL: TestCheckoutTotal (0.00s)\n"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if st.Failures != 4 || st.Shown != 4 {
		t.Errorf("stats %+v", st)
	}
}

// When not all causes fit, each failure's first cause comes before the
// marker of one more failure, and the view says how many are left.
func TestViewPrefersFirstCausesOverMoreMarkers(t *testing.T) {
	var b strings.Builder
	for i := range 8 {
		fmt.Fprintf(&b, "--- FAIL: TestCase%d (0.00s)\n    case_test.go:%d: got %d\n        want %d\n        diff %d\n", i, i, i, i+1, i)
		for j := range 200 {
			fmt.Fprintf(&b, "log line %d\n", j)
		}
	}
	view, st := View(Item{ID: "p", Tool: "Bash", Text: b.String(), Exit: 1}, budget)
	for i := range 5 {
		if !strings.Contains(view, fmt.Sprintf("--- FAIL: TestCase%d ", i)) || !strings.Contains(view, fmt.Sprintf("case_test.go:%d: got %d\n", i, i)) {
			t.Errorf("failure %d or its first cause missing:\n%s", i, view)
		}
	}
	if !strings.Contains(view, "go test reports 8 failed.\nFailing tests (8): TestCase0 (L1), TestCase1 (L205),") {
		t.Errorf("not the runner's account:\n%s", view)
	}
	section := view[strings.Index(view, "32 failure lines"):strings.Index(view, "  … ")]
	if strings.Contains(section, "TestCase5") || strings.Contains(section, "want 1") || st.Shown != 10 || st.Failures != 32 {
		t.Errorf("more markers or later causes than the cap allows (%+v):\n%s", st, view)
	}
	if !strings.Contains(view, "… 22 more failure lines: `ctxkeep show p --failures`") {
		t.Errorf("no count of the rest:\n%s", view)
	}
	if len(view) > budget.Chars {
		t.Errorf("view %d > budget", len(view))
	}
}

// No escape reaches the model: a coloured run's view and its condensed
// text show the lines as a terminal would, numbered as in the original.
func TestNoControlSequenceReachesTheModel(t *testing.T) {
	var b strings.Builder
	b.WriteString("\x1b[1m\x1b[46m RUN \x1b[49m\x1b[22m \x1b[36mv1.6.0\x1b[39m\n")
	for i := range 200 {
		fmt.Fprintf(&b, " \x1b[32m✓\x1b[39m src/t%d.test.ts \x1b[2m(1 test)\x1b[22m\x1b[90m 3\x1b[2mms\x1b[22m\x1b[39m\r\n", i)
	}
	b.WriteString("\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[32m200 passed\x1b[39m\x1b[22m\x1b[90m (200)\x1b[39m\n")
	it := Item{ID: "abc", Tool: "Bash", Input: "npx vitest run \x1b]0;title\x07", Text: b.String(), Exit: 0}
	view, _ := View(it, budget)
	cond, ok := CondenserFor("npx vitest run").Condense(it, budget)
	if !ok {
		t.Fatal("not condensed")
	}
	for name, s := range map[string]string{"view": view, "condensed": cond.Text} {
		if strings.ContainsAny(s, "\x1b\r\a") {
			t.Errorf("%s holds a control character:\n%q", name, s)
		}
		if !strings.Contains(s, "L202: Test Files  200 passed (200)") && !strings.Contains(s, " Test Files  200 passed (200)") {
			t.Errorf("%s lost the summary line:\n%s", name, s)
		}
	}
}
