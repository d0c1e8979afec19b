package swap

import (
	"slices"
	"strings"
)

// The runners ReadRun knows, tried in this order on the lines of an output
// (trimmed, without colour codes). Each recognises its runner by the
// summary it prints, or by the lines it names failures with, and reads its
// account: the counts as the runner prints them, the failing tests by the
// names it gives them. The order matters only where one runner's output
// holds another's lines (gotestsum prints go test's, make prints gcc's).
// docs/SWAP.md lists what each reads; TestRunnerCorpus checks them against
// the runners' own machine-readable results.
var runners = []struct {
	name    string
	anchors []string // one of them is in every output the runner prints (before colour codes are removed)
	read    func(ls []string, r *Run) bool
	named   func(command string, ls []string) string // the runner's name when the output alone does not say it
}{
	{name: "pytest", anchors: []string{"passed", "failed", "error", "skipped", "no tests ran", "deselected"}, read: readPytest},
	{name: "unittest", anchors: []string{"Ran "}, read: readUnittest},
	{name: "cargo test", anchors: []string{"test result: "}, read: readCargoTest},
	{name: "gotestsum", anchors: []string{"DONE "}, read: readGotestsum},
	{name: "go test", anchors: []string{"--- FAIL", "--- PASS", "--- SKIP", "ok ", "FAIL\t", "FAIL \t"}, read: readGoTest},
	{name: "jest", anchors: []string{"Tests:"}, read: readJest},
	{name: "vitest", anchors: []string{"Tests "}, read: readVitest},
	{name: "node --test", anchors: []string{"# fail", "fail "}, read: readNodeTest},
	{name: "mocha", anchors: []string{" passing"}, read: readMocha},
	{name: "mix test", anchors: []string{" failure"}, read: readMixTest},
	{name: "rspec", anchors: []string{" example"}, read: readRspec},
	{name: "minitest", anchors: []string{" assertion"}, read: readMinitest},
	{name: "ctest", anchors: []string{"% tests passed"}, read: readCtest},
	{name: "JUnit", anchors: []string{" tests failed"}, read: readJUnitConsole},
	{name: "JUnit", anchors: []string{"Tests run: ", "OK ("}, read: readTestsRun, named: testsRunName},
	{name: "gradle test", anchors: []string{" tests completed"}, read: readGradle},
	{name: "bun test", anchors: []string{" across "}, read: readBun},
	{name: "deno test", anchors: []string{" passed | "}, read: readDeno},
	{name: "phpunit", anchors: []string{"Assertions: ", " assertion"}, read: readPhpunit},
	{name: "dotnet test", anchors: []string{"Total:"}, read: readDotnet},
	{name: "tsc", anchors: []string{"error TS"}, read: readTsc},
	{name: "eslint", anchors: []string{" problem"}, read: readEslint},
	{name: "javac", anchors: []string{".java:"}, read: readJavac},
	{name: "rustc", anchors: []string{"error[E", "error: could not compile", "error: "}, read: readRustc, named: rustcName},
	{name: "mix", anchors: []string{"Compilation error", "** ("}, read: readMixCompile},
	{name: "go build", anchors: []string{"# "}, read: readGoBuild},
	{name: "gcc", anchors: []string{"error: ", "undefined reference", "Undefined symbols"}, read: readCC, named: ccName},
}

// lastLine returns the index of the last line that match accepts, or -1.
func lastLine(ls []string, match func(string) bool) int {
	for i := len(ls) - 1; i >= 0; i-- {
		if match(ls[i]) {
			return i
		}
	}
	return -1
}

func hasAny(t string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// isRule reports whether t is a line drawn with c alone ("=====").
func isRule(t string, c byte) bool {
	return len(t) >= 10 && strings.Trim(t, string(c)) == ""
}

// pytest: "==== 2 failed, 60 passed, 1 skipped in 0.12s ====" (or, with
// -q, the same without the rule); the failing tests in "short test summary
// info" ("FAILED tests/test_x.py::test_y - AssertionError…"), else the
// "____ test_y ____" headers of its FAILURES and ERRORS sections.
func readPytest(ls []string, r *Run) bool {
	i := lastLine(ls, pytestSummary)
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(strings.Trim(ls[i], "= "))
	r.Failed, r.Errors = m["failed"], sum(m, "error", "errors")
	r.Passed = sum(m, "passed", "xpassed")
	r.Skipped = sum(m, "skipped", "xfailed")
	short := -1
	section := false
	for j, t := range ls[:i] {
		switch {
		case strings.HasPrefix(t, "=") && strings.Contains(t, " short test summary info "):
			short = j
		case strings.HasPrefix(t, "=") && strings.HasSuffix(t, "=") && strings.Contains(t, " "):
			w := strings.Trim(t, "= ")
			section = w == "FAILURES" || w == "ERRORS"
		case section && pytestHeader(t):
			r.name(strings.Trim(t, "_ "), j, ls[j])
		}
	}
	if short >= 0 {
		r.Failing = r.Failing[:0]
		for j := short + 1; j < i; j++ {
			for _, p := range []string{"FAILED ", "ERROR "} {
				if rest, ok := strings.CutPrefix(ls[j], p); ok {
					r.name(pytestID(rest), j, ls[j])
				}
			}
		}
	}
	return true
}

// pytestSummary recognises pytest's last line: counts of outcomes and the
// time it took, between rules unless -q.
func pytestSummary(t string) bool {
	body := strings.Trim(t, "= ")
	if body == t && !startsWithDigit(t) && !strings.HasPrefix(t, "no tests ran") {
		return false
	}
	i := strings.LastIndex(body, " in ")
	if i < 0 || !isDuration(body[i+4:]) {
		return false
	}
	return hasAny(body[:i], "passed", "failed", "error", "skipped", "no tests ran", "xfailed", "deselected") && !strings.Contains(body[:i], ":")
}

// isDuration recognises how pytest writes the time a run took: "0.12s",
// "75.03s (0:01:15)".
func isDuration(t string) bool {
	k := 0
	for k < len(t) && (isDigit(t[k]) || t[k] == '.') {
		k++
	}
	return k > 0 && strings.HasPrefix(t[k:], "s") && (k+1 == len(t) || t[k+1] == ' ')
}

// pytestID is a test's id from a short summary line: up to " - " and the
// message, past the brackets of its parameters.
func pytestID(rest string) string {
	from := 0
	if k := strings.IndexByte(rest, '['); k >= 0 {
		if e := strings.LastIndexByte(rest, ']'); e > k {
			from = e
		}
	}
	if k := strings.Index(rest[from:], " - "); k >= 0 {
		return rest[:from+k]
	}
	return rest
}

func startsWithDigit(t string) bool { return t != "" && isDigit(t[0]) }

// unittest: "Ran 5 tests in 0.001s", then "OK (skipped=1)" or "FAILED
// (failures=2, errors=1)"; each failing test under a rule of '=' as "FAIL:
// test_x (module.Class.test_x)" or "ERROR: …".
func readUnittest(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return strings.HasPrefix(t, "Ran ") && strings.Contains(t, " test") && strings.Contains(t, " in ")
	})
	if i < 0 {
		return false
	}
	total := counts(ls[i])["tests"] + counts(ls[i])["test"]
	end := -1
	for j := i + 1; j < len(ls) && j <= i+3; j++ {
		if ls[j] == "OK" || strings.HasPrefix(ls[j], "OK (") || strings.HasPrefix(ls[j], "FAILED (") || ls[j] == "FAILED" {
			end = j
			break
		}
	}
	if end < 0 {
		return false
	}
	r.summary(end, ls[end])
	words := strings.NewReplacer("expected failures=", "xfail=", "unexpected successes=", "xpass=").Replace(ls[end])
	m := counts(words)
	r.Failed, r.Errors = m["failures"], m["errors"]
	r.Skipped = m["skipped"] + m["xfail"]
	r.Passed = max(total-r.Failed-r.Errors-r.Skipped, 0)
	for j := 1; j < i; j++ {
		if !isRule(ls[j-1], '=') {
			continue
		}
		for _, p := range []string{"FAIL: ", "ERROR: "} {
			if rest, ok := strings.CutPrefix(ls[j], p); ok {
				r.name(rest, j, ls[j])
			}
		}
	}
	return true
}

// cargo test: one "test result: FAILED. 2 passed; 1 failed; 0 ignored; …"
// per test binary, added up; "test tests::x ... FAILED". A crate that does
// not compile stops it before any result: "error: could not compile".
func readCargoTest(ls []string, r *Run) bool {
	seen := false
	for j, t := range ls {
		if rest, ok := strings.CutPrefix(t, "test result: "); ok {
			m := counts(rest)
			if !seen {
				r.Passed = 0
			}
			seen = true
			r.Failed += m["failed"]
			r.Passed += m["passed"]
			r.Skipped += m["ignored"]
			r.summary(j, t)
			r.Parts++
			continue
		}
		if strings.HasPrefix(t, "test ") && strings.HasSuffix(t, " ... FAILED") {
			r.name(strings.TrimSuffix(strings.TrimPrefix(t, "test "), " ... FAILED"), j, ls[j])
		}
		if t == "failures:" { // the list of names, one per line, after the failures' output
			for k := j + 1; k < len(ls) && ls[k] != "" && !strings.Contains(ls[k], " "); k++ {
				r.name(ls[k], k, ls[k])
			}
		}
	}
	return seen
}

// gotestsum: "DONE 12 tests, 2 failures in 1.2s"; "=== FAIL: pkg TestX (0.00s)".
func readGotestsum(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "DONE ") && strings.Contains(t, " test") })
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	total := sum(m, "tests", "test")
	r.Failed = sum(m, "failures", "failure", "errors", "error")
	r.Skipped = sum(m, "skipped")
	r.Passed = max(total-r.Failed-r.Skipped, 0)
	for j, t := range ls {
		if rest, ok := strings.CutPrefix(t, "=== FAIL: "); ok {
			if f := strings.Fields(rest); len(f) >= 2 {
				r.name(f[1], j, ls[j])
			}
		}
	}
	return true
}

// go test: no total; each test that failed says "--- FAIL: TestX (0.00s)"
// (subtests indented under their parent, which fails with them), and each
// package "ok  \tpkg\t0.01s" or "FAIL\tpkg\t0.01s"; "FAIL\tpkg [build
// failed]" when it did not compile. Passing tests are listed (--- PASS)
// only with -v.
func readGoTest(ls []string, r *Run) bool {
	seen, passes, failedPkgs, buildFailed := false, 0, 0, false
	for j, t := range ls {
		switch {
		case strings.HasPrefix(t, "--- FAIL: "):
			seen = true
			r.Failed++
			r.name(goTestName(t), j, ls[j])
		case strings.HasPrefix(t, "--- PASS: "):
			seen = true
			passes++
		case strings.HasPrefix(t, "--- SKIP: "):
			seen = true
			r.Skipped++
		case goPackageLine(t, "ok"):
			seen = true
			if failedPkgs == 0 {
				r.summary(j, t)
			}
		case goPackageLine(t, "FAIL"):
			seen = true
			failedPkgs++
			r.summary(j, t)
			if strings.HasSuffix(t, "[build failed]") || strings.HasSuffix(t, "[setup failed]") {
				buildFailed = true
			}
		}
	}
	if !seen {
		return false
	}
	if passes > 0 {
		r.Passed = passes // without -v, passing tests go unnamed
	}
	switch {
	case buildFailed:
		for j, t := range ls {
			if pkg, ok := strings.CutSuffix(t, " [build failed]"); ok && goPackageLine(t, "FAIL") {
				r.Errors++
				r.name(strings.TrimSpace(strings.TrimPrefix(pkg, "FAIL")), j, ls[j])
			}
		}
		r.ErrorNoun = "package that did not build"
		errs := Run{Unit: "error"}
		readGoCompileErrors(ls, &errs)
		for _, n := range errs.Failing {
			r.name(n.Name, n.Line.N-1, n.Line.Text)
		}
	case r.Failed == 0 && failedPkgs > 0:
		r.Broken = plural(failedPkgs, "package") + " failed"
	}
	return true
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

// goTestName is the name in "--- FAIL: TestX/sub (0.00s)".
func goTestName(t string) string {
	name, _ := goTestHeading(t)
	return name
}

// goPackageLine recognises go test's line for a package: "ok  \tpkg\t0.01s",
// "FAIL\tpkg\t0.01s", "FAIL\tpkg [build failed]".
func goPackageLine(t, status string) bool {
	rest, ok := strings.CutPrefix(t, status)
	return ok && strings.HasPrefix(strings.TrimLeft(rest, " "), "\t") && len(strings.TrimSpace(rest)) > 0
}

// readGoCompileErrors names the compile errors under "# pkg" headings:
// "./x.go:12:2: undefined: foo".
func readGoCompileErrors(ls []string, r *Run) {
	under := false
	n := 0
	for j, t := range ls {
		switch {
		case strings.HasPrefix(t, "# "):
			under = true
		case under && goCompileError(t):
			n++
			r.name(t, j, ls[j])
		case t == "" || goPackageLine(t, "FAIL") || goPackageLine(t, "ok"):
			under = false
		}
	}
	if r.Failed == 0 {
		r.Failed, r.Unit = n, "error"
	}
}

// go build, go vet: "# pkg" and the errors under it.
func readGoBuild(ls []string, r *Run) bool {
	if lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "# ") }) < 0 {
		return false
	}
	r.Unit = "error"
	readGoCompileErrors(ls, r)
	return r.Failed > 0
}

// jest: "Tests:       1 failed, 1 skipped, 3 passed, 5 total" and "Test
// Suites: 1 failed, 2 passed, 3 total"; each failing test under "● Suite ›
// name".
func readJest(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "Tests:") && strings.Contains(t, " total") })
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	r.Failed, r.Passed, r.Skipped = m["failed"], m["passed"], sum(m, "skipped", "todo")
	file := -1 // the last "FAIL path" line: the suite a "● Test suite failed to run" is about
	for j, t := range ls[:i] {
		if strings.HasPrefix(t, "FAIL ") {
			file = j
		}
		rest, ok := strings.CutPrefix(t, "● ")
		switch {
		case !ok || rest == "Console":
		case strings.HasPrefix(rest, "Test suite failed to run"):
			r.Errors++
			r.ErrorNoun = "suite that did not run"
			if file >= 0 {
				r.name(strings.TrimSpace(strings.TrimPrefix(ls[file], "FAIL")), file, ls[file])
			}
		default:
			r.name(rest, j, ls[j])
		}
	}
	return true
}

// vitest: "Tests  2 failed | 60 passed (62)", "Test Files  1 failed | 3
// passed (4)", "Errors  1 error" for errors outside tests; each failing test
// as "FAIL  src/x.test.ts > suite > name" (else "× name" in the tree).
func readVitest(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return strings.HasPrefix(t, "Tests ") && strings.HasSuffix(t, ")") && hasAny(t, " passed", " failed", " skipped", " todo")
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	r.Failed, r.Passed, r.Skipped = m["failed"], m["passed"], sum(m, "skipped", "todo")
	for j := i; j < len(ls) && j < i+4; j++ {
		if strings.HasPrefix(ls[j], "Errors ") && hasAny(ls[j], " error") {
			if n := sum(counts(ls[j]), "error", "errors"); n > 0 {
				r.Broken = plural(n, "unhandled error")
			}
		}
	}
	for j, t := range ls[:i] {
		rest, ok := strings.CutPrefix(t, "FAIL ")
		rest = strings.TrimSpace(rest)
		switch {
		case ok && strings.Contains(rest, " > "):
			r.name(rest, j, ls[j])
		case ok && strings.HasSuffix(rest, " ]"): // "FAIL  src/x.test.ts [ src/x.test.ts ]": the file did not load
			file, _, _ := strings.Cut(rest, " [")
			if !slices.ContainsFunc(r.Failing, func(n Named) bool { return n.Name == file }) {
				r.Errors++
				r.ErrorNoun = "file that did not load"
			}
			r.name(file, j, ls[j])
		}
	}
	if len(r.Failing) == 0 {
		for j, t := range ls[:i] {
			for _, p := range []string{"× ", "✗ "} {
				if rest, ok := strings.CutPrefix(t, p); ok {
					r.name(trimDuration(rest), j, ls[j])
				}
			}
		}
	}
	return true
}

// trimDuration drops a test's time from the end of its line: "name 12ms",
// "name (1.2ms)", "name [0.12ms]".
func trimDuration(t string) string {
	t = strings.TrimSpace(t)
	for _, pair := range [][2]string{{"(", ")"}, {"[", "]"}} {
		if strings.HasSuffix(t, "ms"+pair[1]) || strings.HasSuffix(t, "s"+pair[1]) {
			if k := strings.LastIndex(t, " "+pair[0]); k > 0 {
				return t[:k]
			}
		}
	}
	if k := strings.LastIndexByte(t, ' '); k > 0 && strings.HasSuffix(t, "ms") && isDigit(t[k+1]) {
		return t[:k]
	}
	return t
}

// node --test: TAP's "# tests 5", "# pass 3", "# fail 2" (the spec
// reporter's "ℹ tests 5"…); each failing test "not ok 2 - name" (spec:
// "✖ name (1.2ms)").
func readNodeTest(ls []string, r *Run) bool {
	var got map[string]int
	sumLine := -1
	for _, lead := range []string{"# ", "ℹ "} {
		m := map[string]int{}
		for j, t := range ls {
			rest, ok := strings.CutPrefix(t, lead)
			if !ok {
				continue
			}
			f := strings.Fields(rest)
			if len(f) == 2 && startsWithDigit(f[1]) {
				switch f[0] {
				case "tests", "pass", "fail", "skipped", "todo", "cancelled":
					m[f[0]] = atoi(f[1])
					if f[0] == "fail" {
						sumLine = j
					}
				}
			}
		}
		if _, ok := m["tests"]; ok {
			if _, ok := m["fail"]; ok {
				got = m
				break
			}
		}
	}
	if got == nil {
		return false
	}
	r.summary(sumLine, ls[sumLine])
	r.Failed = got["fail"] + got["cancelled"]
	r.Passed = got["pass"]
	r.Skipped = got["skipped"] + got["todo"]
	for j, t := range ls {
		if rest, ok := strings.CutPrefix(t, "not ok "); ok {
			if _, name, ok := strings.Cut(rest, " - "); ok && !hasAny(name, "# SKIP", "# TODO", "# skip", "# todo") {
				r.name(name, j, ls[j])
			}
		}
		if rest, ok := strings.CutPrefix(t, "✖ "); ok && rest != "failing tests:" {
			r.name(trimDuration(rest), j, ls[j])
		}
	}
	return true
}

// mocha: "3 passing (10ms)", "2 failing", "1 pending"; each failure
// numbered after the count, its name on the lines up to one ending in a
// colon ("1) Array", "#indexOf()", "should fail:").
func readMocha(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return startsWithDigit(t) && hasAny(t, " passing (", " passing") && len(strings.Fields(t)) <= 3
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	r.Passed = counts(ls[i])["passing"]
	for j := i + 1; j < len(ls) && j < i+4; j++ {
		m := counts(ls[j])
		if n, ok := m["failing"]; ok && len(m) == 1 {
			r.Failed = n
			r.summary(j, ls[j])
		}
		if n, ok := m["pending"]; ok && len(m) == 1 {
			r.Skipped = n
		}
	}
	for j := i + 1; j < len(ls); j++ {
		k := digitsEnd(ls[j], 0)
		if k == 0 || !strings.HasPrefix(ls[j][k:], ") ") {
			continue
		}
		parts := []string{ls[j][k+2:]}
		for n := j + 1; n < len(ls) && n < j+8 && !strings.HasSuffix(parts[len(parts)-1], ":") && ls[n] != ""; n++ {
			parts = append(parts, ls[n])
		}
		r.name(strings.TrimSuffix(strings.Join(parts, " "), ":"), j, ls[j])
	}
	return true
}

// mix test: "14 doctests, 410 tests, 2 failures, 1 excluded"; each failure
// "1) test adds (MyApp.CartTest)".
func readMixTest(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		if !startsWithDigit(t) || !hasAny(t, " failure") || !hasAny(t, " test", " doctest", " propert") {
			return false
		}
		m := counts(t)
		_, tests := first(m, "tests", "test", "doctests", "doctest", "properties", "property")
		_, fails := first(m, "failures", "failure")
		return tests && fails
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	total := sum(m, "tests", "test", "doctests", "doctest", "properties", "property")
	r.Failed = sum(m, "failures", "failure")
	r.Errors, r.ErrorNoun = m["invalid"], "invalid test"
	r.Skipped = sum(m, "skipped", "excluded")
	r.Passed = max(total-r.Failed-r.Errors-r.Skipped, 0)
	for j, t := range ls[:i] {
		k := digitsEnd(t, 0)
		if k > 0 && strings.HasPrefix(t[k:], ") ") {
			rest := t[k+2:]
			switch {
			case strings.HasPrefix(rest, "test ") || strings.HasPrefix(rest, "doctest ") || strings.HasPrefix(rest, "property "):
				r.name(rest, j, ls[j])
			case strings.Contains(rest, ": failure on setup_all callback"): // its tests are the invalid ones
				mod, _, _ := strings.Cut(rest, ": ")
				r.name(mod, j, ls[j])
			}
		}
	}
	return true
}

// mix without a test summary: compilation stopped it. Elixir 1.15 and
// later print each error as "error: …" with its place under it ("└─
// lib/x.ex:12: X.f/1"), then "== Compilation error in file lib/x.ex ==";
// earlier ones one "** (CompileError) lib/x.ex:3: …".
func readMixCompile(ls []string, r *Run) bool {
	headers := 0
	for j, t := range ls {
		if strings.HasPrefix(t, "== Compilation error") || strings.HasPrefix(t, "** (CompileError)") || strings.HasPrefix(t, "** (SyntaxError)") ||
			strings.HasPrefix(t, "** (TokenMissingError)") || strings.HasPrefix(t, "** (MismatchedDelimiterError)") {
			if headers == 0 {
				r.summary(j, ls[j])
			}
			headers++
		}
	}
	if headers == 0 {
		return false
	}
	r.Unit, r.Broken = "error", "compilation failed"
	for j, t := range ls {
		if !strings.HasPrefix(t, "error: ") {
			continue
		}
		r.Failed++
		name := strings.TrimPrefix(t, "error: ")
		for k := j + 1; k < len(ls) && k <= j+8; k++ {
			if loc, ok := strings.CutPrefix(ls[k], "└─ "); ok {
				name, _, _ = strings.Cut(loc, ": ")
				break
			}
		}
		r.name(name, j, ls[j])
	}
	if r.Failed == 0 {
		for j, t := range ls {
			if strings.HasPrefix(t, "** (") {
				r.Failed++
				r.name(t, j, ls[j])
			}
		}
		r.Failed = max(r.Failed, 1)
	}
	return true
}

// rspec: "62 examples, 2 failures, 1 pending"; each failure "rspec
// ./spec/x_spec.rb:12 # Thing does x".
func readRspec(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool { return startsWithDigit(t) && hasAny(t, " example") && hasAny(t, " failure") })
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	total := sum(m, "examples", "example")
	r.Failed = sum(m, "failures", "failure")
	r.Skipped = m["pending"]
	r.Passed = max(total-r.Failed-r.Skipped, 0)
	if n := sum(m, "error", "errors"); n > 0 && strings.Contains(ls[i], "outside of examples") {
		r.Errors, r.ErrorNoun = n, "error outside of examples"
	}
	for j, t := range ls {
		if rest, ok := strings.CutPrefix(t, "rspec "); ok {
			if _, name, ok := strings.Cut(rest, " # "); ok {
				r.name(name, j, ls[j])
			}
		}
	}
	return true
}

// minitest: "5 runs, 7 assertions, 1 failures, 0 errors, 0 skips"; each
// failure "1) Failure:" then "TestX#test_y [test/x_test.rb:5]:".
func readMinitest(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return startsWithDigit(t) && hasAny(t, " runs,", " run,") && hasAny(t, " assertion")
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	total := sum(m, "runs", "run")
	r.Failed = sum(m, "failures", "failure", "errors", "error")
	r.Skipped = sum(m, "skips", "skip")
	r.Passed = max(total-r.Failed-r.Skipped, 0)
	for j := 1; j < len(ls); j++ {
		p := ls[j-1]
		k := digitsEnd(p, 0)
		if k > 0 && (strings.HasSuffix(p, ") Failure:") || strings.HasSuffix(p, ") Error:")) {
			name, _, _ := strings.Cut(ls[j], " [")
			r.name(strings.TrimSuffix(name, ":"), j, ls[j])
		}
	}
	return true
}

// ctest: "67% tests passed, 1 tests failed out of 3"; under "The following
// tests FAILED:", "2 - name (Failed)".
func readCtest(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool { return strings.Contains(t, "% tests passed") && strings.Contains(t, " out of ") })
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	_, after, _ := strings.Cut(ls[i], "tests passed")
	f := strings.Fields(after)
	for k, w := range f {
		if w == "failed" && k >= 2 {
			r.Failed = atoi(strings.TrimLeft(f[k-2], ", "))
		}
	}
	if k := strings.Index(ls[i], " out of "); k >= 0 {
		r.Passed = max(atoi(strings.TrimSpace(ls[i][k+8:]))-r.Failed, 0)
	}
	under := false
	for j, t := range ls {
		switch {
		case strings.HasPrefix(t, "The following tests FAILED"):
			under = true
		case under && startsWithDigit(t) && strings.Contains(t, " - "):
			_, rest, _ := strings.Cut(t, " - ")
			if k := strings.LastIndex(rest, " ("); k > 0 {
				rest = rest[:k]
			}
			r.name(rest, j, ls[j])
		case under && t == "":
			under = false
		}
	}
	return true
}

// JUnit's console launcher: a box of counts, "[   1 tests failed   ]";
// each failure "JUnit Jupiter:CalcTest:adds()" under "Failures (1):".
func readJUnitConsole(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "[") && strings.Contains(t, " tests failed") })
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	for _, t := range ls {
		if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
			continue
		}
		m := counts(strings.Trim(t, "[] "))
		f := strings.Fields(strings.Trim(t, "[] "))
		if len(f) == 3 && f[1] == "tests" {
			switch f[2] {
			case "successful":
				r.Passed = m["tests"]
			case "failed":
				r.Failed += m["tests"]
			case "skipped", "aborted":
				r.Skipped += m["tests"]
			}
		}
	}
	for j, t := range ls {
		for _, p := range []string{"JUnit Jupiter:", "JUnit Vintage:"} {
			if rest, ok := strings.CutPrefix(t, p); ok {
				r.name(rest, j, ls[j])
			}
		}
		// --details=flat: "Finished:    name ([engine:…])", its exception on the next line
		if rest, ok := strings.CutPrefix(t, "Finished:"); ok && j+1 < len(ls) && strings.HasPrefix(ls[j+1], "=> ") {
			name, _, _ := strings.Cut(strings.TrimSpace(rest), " ([")
			r.name(name, j, ls[j])
		}
	}
	return true
}

// JUnit 4's runner, Maven's surefire: "Tests run: 3, Failures: 1, Errors:
// 0, Skipped: 0" (surefire prints one per class, then the total last) or
// "OK (3 tests)"; failures as "1) testAdd(CalcTest)", "CalcTest.testAdd:12
// expected…" under "Failures:", or "testAdd(CalcTest)  Time elapsed: … <<<
// FAILURE!".
func readTestsRun(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		t = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(t, "[ERROR]"), "[INFO]"), "[WARNING]"), " ")
		return strings.HasPrefix(t, "Tests run: ") && strings.Contains(t, "Failures: ") || strings.HasPrefix(t, "OK (") && strings.HasSuffix(t, " tests)")
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	total, _ := first(m, "run", "tests", "test")
	r.Failed = sum(m, "failures", "errors")
	r.Skipped = m["skipped"]
	r.Passed = max(total-r.Failed-r.Skipped, 0)
	under := false
	for j, t := range ls {
		t = strings.TrimSpace(strings.TrimPrefix(t, "[ERROR]"))
		switch {
		case t == "Failures:" || t == "Errors:":
			under = true
		case under && t != "" && !strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "Run ") && !strings.HasPrefix(t, "Tests run:"):
			name, _, _ := strings.Cut(t, " ")
			if k := strings.LastIndexByte(name, ':'); k > 0 && startsWithDigit(name[k+1:]) {
				name = name[:k]
			}
			r.name(name, j, ls[j])
		case under:
			under = false
		}
		if strings.Contains(t, "<<< FAILURE!") || strings.Contains(t, "<<< ERROR!") {
			name, _, _ := strings.Cut(t, " -- Time elapsed") // surefire 3; 2 writes "name  Time elapsed"
			name, _, _ = strings.Cut(name, "  ")
			if !strings.HasPrefix(name, "Tests run:") {
				r.name(name, j, ls[j])
			}
		}
		if k := digitsEnd(t, 0); k > 0 && strings.HasPrefix(t[k:], ") ") && strings.HasSuffix(t, ")") && !strings.Contains(t[k+2:], " ") {
			r.name(t[k+2:], j, ls[j])
		}
	}
	return true
}

func testsRunName(command string, ls []string) string {
	if lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "[INFO]") }) >= 0 || strings.Contains(command, "mvn") {
		return "maven surefire"
	}
	return "JUnit"
}

// gradle: "3 tests completed, 1 failed, 1 skipped"; "CalcTest > testAdd() FAILED".
func readGradle(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool { return startsWithDigit(t) && strings.Contains(t, " tests completed") })
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	r.Failed, r.Skipped = m["failed"], m["skipped"]
	r.Passed = max(m["tests"]-r.Failed-r.Skipped, 0)
	for j, t := range ls {
		if name, ok := strings.CutSuffix(t, " FAILED"); ok && strings.Contains(name, " > ") {
			r.name(name, j, ls[j])
		}
	}
	return true
}

// bun test: "3 pass", "1 fail", "Ran 4 tests across 1 files."; "(fail) name [0.12ms]".
func readBun(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "Ran ") && strings.Contains(t, " across ") })
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	r.Passed = 0
	for _, t := range ls[max(0, i-8):i] {
		if f := strings.Fields(t); len(f) == 2 && startsWithDigit(f[0]) {
			switch f[1] {
			case "pass":
				r.Passed = atoi(f[0])
			case "fail":
				r.Failed = atoi(f[0])
			case "skip", "todo":
				r.Skipped += atoi(f[0])
			}
		}
	}
	for j, t := range ls {
		if rest, ok := strings.CutPrefix(t, "(fail) "); ok {
			r.name(trimDuration(rest), j, ls[j])
		}
	}
	return true
}

// deno test: "FAILED | 1 passed | 1 failed (10ms)", "ok | 2 passed | 0
// failed (5ms)"; "name ... FAILED (2ms)".
func readDeno(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return (strings.HasPrefix(t, "ok | ") || strings.HasPrefix(t, "FAILED | ")) && strings.Contains(t, " passed")
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	r.Failed, r.Passed, r.Skipped = m["failed"], m["passed"], m["ignored"]
	for j, t := range ls[:i] {
		if k := strings.Index(t, " ... FAILED"); k > 0 {
			r.name(t[:k], j, ls[j])
		}
	}
	return true
}

// phpunit: "Tests: 5, Assertions: 7, Failures: 1." or "OK (5 tests, 7
// assertions)"; "1) CalcTest::testAdd".
func readPhpunit(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return strings.HasPrefix(t, "Tests: ") && strings.Contains(t, "Assertions: ") || strings.HasPrefix(t, "OK (") && strings.Contains(t, " assertion")
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	total, _ := first(m, "tests", "test")
	r.Failed = sum(m, "failures", "errors")
	r.Skipped = sum(m, "skipped", "incomplete")
	r.Passed = max(total-r.Failed-r.Skipped, 0)
	for j, t := range ls[:i] {
		if k := digitsEnd(t, 0); k > 0 && strings.HasPrefix(t[k:], ") ") && strings.Contains(t, "::") {
			r.name(t[k+2:], j, ls[j])
		}
	}
	return true
}

// dotnet test: "Failed!  - Failed:     1, Passed:     4, Skipped:     0,
// Total:     5"; "Failed Ns.Class.Test [5 ms]".
func readDotnet(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return (strings.HasPrefix(t, "Failed!") || strings.HasPrefix(t, "Passed!")) && strings.Contains(t, "Total:")
	})
	if i < 0 {
		return false
	}
	r.summary(i, ls[i])
	m := counts(ls[i])
	r.Failed, r.Passed, r.Skipped = m["failed"], m["passed"], m["skipped"]
	for j, t := range ls[:i] {
		if rest, ok := strings.CutPrefix(t, "Failed "); ok && strings.HasSuffix(rest, "]") {
			r.name(trimDuration(rest), j, ls[j])
		}
	}
	return true
}

// tsc: "src/x.ts(3,7): error TS2322: …" (or, pretty, "src/x.ts:3:7 - error
// TS2322: …"), and with --pretty "Found 2 errors in 1 file.".
func readTsc(ls []string, r *Run) bool {
	r.Unit = "error"
	for j, t := range ls {
		k := strings.Index(t, "error TS")
		if k <= 0 || !startsWithDigit(t[k+8:]) {
			continue
		}
		loc := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(t[:k]), ":"), " -")
		loc = strings.TrimLeftFunc(loc, func(r rune) bool { return r >= 0x2800 && r <= 0x28ff }) // a spinner's frames
		if loc == "" || strings.ContainsAny(loc, " ") {
			continue
		}
		code := t[k+6 : digitsEnd(t, k+8)]
		r.Failed++
		r.name(tscPlace(loc)+" "+code, j, ls[j])
	}
	if i := lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "Found ") && hasAny(t, " error") }); i >= 0 {
		r.summary(i, ls[i])
		if n, ok := first(counts(ls[i]), "errors", "error"); ok {
			r.Failed = n
		}
		return true
	}
	return r.Failed > 0
}

// tscPlace writes tsc's "src/x.ts(3,7)" as "src/x.ts:3:7", as its pretty
// output and every other tool do.
func tscPlace(loc string) string {
	if k := strings.LastIndexByte(loc, '('); k > 0 && strings.HasSuffix(loc, ")") {
		return loc[:k] + ":" + strings.Replace(loc[k+1:len(loc)-1], ",", ":", 1)
	}
	return loc
}

// eslint: "✖ 5 problems (3 errors, 2 warnings)"; each problem
// "3:7  error  message  rule" under its file's path.
func readEslint(ls []string, r *Run) bool {
	i := lastLine(ls, func(t string) bool {
		return strings.HasPrefix(t, "✖ ") && hasAny(t, " problem") && strings.Contains(t, "(")
	})
	if i < 0 {
		return false
	}
	r.Unit = "error"
	r.summary(i, ls[i])
	r.Failed, _ = first(counts(ls[i]), "errors", "error")
	file := ""
	for j, t := range ls[:i] {
		f := strings.Fields(t)
		switch {
		case len(f) >= 3 && strings.Count(f[0], ":") == 1 && startsWithDigit(f[0]) && f[1] == "error":
			r.name(file+":"+f[0]+" "+f[len(f)-1], j, ls[j])
		case len(f) == 1 && (strings.HasPrefix(t, "/") || strings.Contains(t, ".")) && !startsWithDigit(t):
			file = t
		}
	}
	return true
}

// javac: "Foo.java:3: error: cannot find symbol", then "2 errors".
func readJavac(ls []string, r *Run) bool {
	r.Unit = "error"
	n := 0
	for j, t := range ls {
		if k := strings.Index(t, ".java:"); k > 0 && strings.Contains(t, ": error: ") {
			n++
			loc, _, _ := strings.Cut(t, ": error: ")
			r.name(loc, j, ls[j])
		}
	}
	if n == 0 {
		return false
	}
	r.Failed = n
	if i := lastLine(ls, func(t string) bool {
		return startsWithDigit(t) && (strings.HasSuffix(t, " errors") || strings.HasSuffix(t, " error"))
	}); i >= 0 {
		r.summary(i, ls[i])
		r.Failed = atoi(ls[i])
	}
	return true
}

// rustc (cargo build, check, run): "error[E0308]: mismatched types", its
// place on the next lines ("--> src/main.rs:4:18"), and "error: could not
// compile `x` (bin "x") due to 2 previous errors".
func readRustc(ls []string, r *Run) bool {
	r.Unit = "error"
	n := 0
	for j, t := range ls {
		if !strings.HasPrefix(t, "error[E") && !(strings.HasPrefix(t, "error: ") && !hasAny(t, "could not compile", "aborting due to", "test failed", "Recipe `")) {
			continue
		}
		if !strings.HasPrefix(t, "error[E") && !nextIsArrow(ls, j) {
			continue
		}
		n++
		name := t
		for k := j + 1; k < len(ls) && k <= j+3; k++ {
			if loc, ok := strings.CutPrefix(ls[k], "--> "); ok {
				code := ""
				if strings.HasPrefix(t, "error[") {
					code = " " + t[6:strings.IndexByte(t, ']')]
				}
				name = loc + code
				break
			}
		}
		r.name(name, j, ls[j])
	}
	i := lastLine(ls, func(t string) bool { return strings.HasPrefix(t, "error: could not compile") })
	if n == 0 && i < 0 {
		return false
	}
	r.Failed = n
	if i >= 0 {
		r.summary(i, ls[i])
		r.Broken = "build failed"
		if k := strings.Index(ls[i], " due to "); k > 0 {
			if m, ok := first(counts(ls[i][k:]), "previous"); ok {
				r.Failed = m
			} else if strings.Contains(ls[i][k:], "previous error") {
				r.Failed = 1
			}
		}
	}
	return true
}

func nextIsArrow(ls []string, j int) bool {
	for k := j + 1; k < len(ls) && k <= j+2; k++ {
		if strings.HasPrefix(ls[k], "--> ") {
			return true
		}
	}
	return false
}

func rustcName(command string, _ []string) string {
	if f := strings.Fields(command); len(f) > 0 && strings.Contains(command, "cargo") {
		for i, w := range f {
			if w == "cargo" && i+1 < len(f) {
				return "cargo " + f[i+1]
			}
		}
	}
	return "rustc"
}

// gcc and clang, alone or under make: "x.c:3:5: error: …", "fatal
// error: …", the linker's "undefined reference to `foo'"; clang's "2
// errors generated.".
func readCC(ls []string, r *Run) bool {
	r.Unit = "error"
	for j, t := range ls {
		switch {
		case ccError(t):
			r.Failed++
			loc, _, _ := strings.Cut(t, ": ")
			r.name(loc, j, ls[j])
		case strings.Contains(t, "undefined reference to "): // one error per missing symbol, however often it is used
			_, ref, _ := strings.Cut(t, "undefined reference to ")
			name := "undefined reference to " + ref
			if !slices.ContainsFunc(r.Failing, func(n Named) bool { return n.Name == name }) {
				r.Failed++
			}
			r.name(name, j, ls[j])
		case strings.Contains(t, "Undefined symbols for architecture"):
			r.Failed++
			r.name(t, j, ls[j])
		}
	}
	if i := lastLine(ls, func(t string) bool { return startsWithDigit(t) && hasAny(t, " errors generated.", " error generated.") }); i >= 0 {
		r.summary(i, ls[i])
	}
	return r.Failed > 0
}

// ccError recognises a C or C++ compiler's error: "path/x.c:3:5: error: …",
// "x.cpp:3: fatal error: …".
func ccError(t string) bool {
	k := strings.Index(t, ": error: ")
	if k < 0 {
		k = strings.Index(t, ": fatal error: ")
	}
	if k <= 0 {
		return false
	}
	loc := t[:k]
	c := strings.IndexByte(loc, ':')
	if c <= 0 || strings.ContainsAny(loc[:c], " \t") {
		return false
	}
	dot := strings.LastIndexByte(loc[:c], '.')
	if dot < 0 {
		return false
	}
	switch loc[dot+1 : c] {
	case "c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "m", "mm", "cu", "s", "S":
		return startsWithDigit(loc[c+1:])
	}
	return false
}

func ccName(command string, ls []string) string {
	if strings.Contains(command, "clang") || lastLine(ls, func(t string) bool {
		return strings.HasPrefix(t, "clang") || hasAny(t, " errors generated.", " error generated.")
	}) >= 0 {
		return "clang"
	}
	if strings.Contains(command, "g++") {
		return "g++"
	}
	return "gcc"
}
