package swap

import (
	mathbits "math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Which lines of a run's output mark a failure: a failed test's header, a
// panic, a compiler error, a summary that counts failures, a non-zero exit.
// The word alone is not enough ("- API/network failure must not block
// startup." is prose): a line must have the shape a tool gives it.
//
// The rules are plain string tests rather than regular expressions: they
// run on every large output in a hook process, and a megabyte of build log
// must be scanned in a few milliseconds. Every rule has an anchor, a string
// each line it matches contains; one pass over the text finds the lines
// holding an anchor, and only those are tried.

// marker is what a line starts.
type marker uint8

const (
	noMarker  marker = iota
	opener           // a failure of its own, which ends the one above
	message          // an error message: a cause of the failure above it, else a failure of its own
	goTest           // "--- FAIL: TestX": with go test -v, its log lines come before it
	goPanic          // "panic: …": its causes are the first frames of the project
	traceback        // Python's "Traceback …": its cause is its last line
	pyTest           // pytest's "____ test_x ____": its E lines may come after the test's source
	bare             // a failure without causes: an exit status, a count of failures
	claimed          // not a rule's: a line already taken as the cause of a failure
)

// A rule says that lines holding one of its anchors and matching match
// (on the plain line: trimmed, without colour codes) are markers of a kind.
type rule struct {
	anchors []string
	kind    marker
	match   func(t string) bool
}

// openerPrefixes start a line that marks a failure.
var openerPrefixes = []string{
	"FAIL", "FAILED", "FAILURE", "ERROR", "error:", "error[", "ERR!", "npm ERR!", "npm error", "fatal:", "Fatal:", "FATAL",
	"Exception in thread", "== Compilation error", "[ERROR]", "[FAIL]", "not ok ", "✗", "✘", "✕", "×",
	"Aborted", "Killed", "make: ***", "Could not ", "Uncaught ",
}

// messagePrefixes start an error message.
var messagePrefixes = []string{"E   ", "** (", "Error:", "Caused by:", "Assertion with", "Failure/Error:", "Failed asserting"}

// openerPhrases mark a failure anywhere in a line.
var openerPhrases = []string{
	"Segmentation fault", "segmentation fault", "core dumped", "undefined reference",
	": No such file or directory", "] No such file or directory", ": command not found", "command not found: ",
	": Permission denied", "] Permission denied", ": permission denied",
	"returned non-zero", "BUILD FAILED", "BUILD FAILURE", " failed with ",
	": error:", ": error TS", " - error TS", ": fatal error:", "... FAILED", "panicked at", "ERR_PNPM_",
}

// exitPhrases are followed by a status; they mark a failure unless it is 0.
var exitPhrases = []string{"exit status ", "Exit status ", "exit code ", "Exit code ", "exited with code ", "exited with status "}

// countAnchors are in every line that counts failures ("5 tests, 4
// failures", "Tests: 1 failed", "FAILED (errors=1)").
var countAnchors = []string{"fail", "Fail", "FAIL", "error", "Error", "ERROR"}

// rules are tried in order: an error message is one before it is anything
// else, so that it can join the failure it explains.
var rules = func() []rule {
	var rs []rule
	add := func(anchor string, kind marker, match func(string) bool) {
		rs = append(rs, rule{[]string{anchor}, kind, match})
	}
	add("--- FAIL", goTest, prefix("--- FAIL"))
	add("panic:", goPanic, prefix("panic:"))
	add("Traceback", traceback, prefix("Traceback"))
	add("___", pyTest, pytestHeader)
	for _, p := range messagePrefixes {
		add(p, message, prefix(p))
	}
	rs = append(rs, rule{[]string{"Error", "Exception"}, message, errorName})
	for _, p := range openerPrefixes {
		add(p, opener, prefix(p))
	}
	add("●", opener, func(t string) bool { return strings.HasPrefix(t, "●") && t != "● Console" })
	add("Error", opener, func(t string) bool { return t == "Error" })
	for _, p := range openerPhrases {
		add(p, opener, func(t string) bool { return strings.Contains(t, p) })
	}
	for _, p := range exitPhrases {
		add(p, bare, func(t string) bool {
			i := strings.Index(t, p)
			// One that opens a quoted string is code or prose quoting it
			// (`t.Fatalf("exit status 1")` in a grep of tests).
			return i >= 0 && nonZeroNumber(t[i+len(p):]) && (i == 0 || strings.IndexByte("\"'`", t[i-1]) < 0)
		})
	}
	add(" failed:", opener, failedColon)
	add(".go:", opener, goCompileError)
	add(") ", opener, numberedTest)
	add("error", opener, eslintError)
	rs = append(rs, rule{countAnchors, bare, countsFailures})
	return rs
}()

// prefix matches lines starting with p as a whole word.
func prefix(p string) func(string) bool {
	return func(t string) bool {
		return strings.HasPrefix(t, p) && (len(t) == len(p) || !isWordByte(p, len(p)-1) || !isWordByte(t, len(p)))
	}
}

// errorName recognises a line that starts with an exception's name:
// "ValueError: …", "java.lang.IllegalStateException: boom",
// "AssertionError [ERR_ASSERTION]: …".
func errorName(t string) bool {
	end := strings.IndexAny(t, ": [")
	if end < 0 {
		end = len(t)
	}
	name := t[:end]
	if !strings.HasSuffix(name, "Error") && !strings.HasSuffix(name, "Exception") || len(name) <= len("Error") {
		return false
	}
	for i := range len(name) {
		if !isWordByte(name, i) && name[i] != '.' && name[i] != '$' {
			return false
		}
	}
	rest := t[end:]
	return rest == "" || rest[0] == ':' || strings.HasPrefix(rest, " [")
}

// pytestHeader recognises pytest's "_____ test_refund _____" (and
// "____ ERROR collecting tests/x.py ____").
func pytestHeader(t string) bool {
	name := strings.Trim(t, "_")
	return strings.HasPrefix(t, "___") && strings.HasSuffix(t, "___") &&
		len(name) > 2 && name[0] == ' ' && name[len(name)-1] == ' '
}

// numberedTest recognises ExUnit's "1) test renders page (MyApp.PageTest)"
// (and doctests, properties), not a numbered list of prose.
func numberedTest(t string) bool {
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if i == 0 || !strings.HasPrefix(t[i:], ") ") {
		return false
	}
	rest := t[i+2:]
	for _, w := range []string{"test ", "doctest ", "property "} {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}

// eslintError recognises ESLint's "  12:5  error  'x' is not defined".
func eslintError(t string) bool {
	i := digitsEnd(t, 0)
	if i == 0 || i == len(t) || t[i] != ':' {
		return false
	}
	j := digitsEnd(t, i+1)
	if j == i+1 {
		return false
	}
	rest := strings.TrimLeft(t[j:], " ")
	return len(rest) < len(t[j:]) && strings.HasPrefix(rest, "error ")
}

// digitsEnd is where the digits of s from i end.
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// failedColon recognises a line that starts with what failed, in a few
// plain words: "Pre-commit validation failed: …", "Request failed: 403";
// not a log line ("12:03:04 [warning] call failed: …") or code.
func failedColon(t string) bool {
	subject, _, found := strings.Cut(t, " failed:")
	if !found || strings.Count(subject, " ") > 3 {
		return false
	}
	for i := range len(subject) {
		if c := subject[i]; c != ' ' && c != '-' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// goCompileError recognises "./x.go:12:3: undefined: foo".
func goCompileError(t string) bool {
	i := strings.Index(t, ".go:")
	if i < 0 {
		return false
	}
	rest := t[i+4:]
	for n := 0; n < 2; n++ {
		j := 0
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		if j == 0 || j == len(rest) || rest[j] != ':' {
			return false
		}
		rest = rest[j+1:]
	}
	return strings.HasPrefix(rest, " ")
}

// failureNouns are counted in summaries.
var failureNouns = []string{"failures", "failure", "failed", "failing", "errors", "errored", "error"}

// countsFailures recognises a summary that counts failures, more than
// none: "5 tests, 4 failures", "=== 1 failed, 3 passed in 0.1s ===",
// "Tests: 1 failed", "FAILED (failures=2)", "Found 3 errors.", "1 error",
// "test result: FAILED. 1 passed; 1 failed". Not "0 failures", nor prose
// with no count ("handle errors gracefully") or whose count is of
// something else ("fix 2 failing tests").
func countsFailures(t string) bool {
	for i := 0; i < len(t); {
		start, end := nextNoun(t, i)
		if start < 0 {
			return false
		}
		if isWordAt(t, start, end) && (countBefore(t[:start]) && endsPhrase(t[end:]) || countAfter(t[end:])) {
			return true
		}
		i = end
	}
	return false
}

// nextNoun finds the next "fail…" or "error…" of t from i, in one of the
// cases the anchors hold (fail, Fail, FAIL), and how far the failure noun
// it starts goes (only "fail" or "error" if it starts none).
func nextNoun(t string, i int) (start, end int) {
	for ; i+4 <= len(t); i++ {
		if c := t[i] | 0x20; c != 'f' && c != 'e' {
			continue
		}
		stem := 0
		switch w := t[i:min(i+5, len(t))]; {
		case w[:4] == "fail" || w[:4] == "Fail" || w[:4] == "FAIL":
			stem = 4
		case w == "error" || w == "Error" || w == "ERROR":
			stem = 5
		default:
			continue
		}
		end := i + stem
		for _, n := range failureNouns {
			if len(t)-i >= len(n) && strings.EqualFold(t[i:i+len(n)], n) {
				end = i + len(n)
				break
			}
		}
		return i, end
	}
	return -1, -1
}

// countBefore: before ends with a number above 0 and one space ("4 "),
// a number that is not the end of a time or a listing's date ("Nov 26
// 23:37 errors", "Nov 26  2025 errors": ls -l of a folder named errors).
func countBefore(before string) bool {
	s, found := strings.CutSuffix(before, " ")
	if !found {
		return false
	}
	i := len(s)
	for i > 0 && isDigit(s[i-1]) {
		i--
	}
	if i == len(s) || i > 0 && (isWordByte(s, i-1) || s[i-1] == ':') || listingDate(s[:i]) {
		return false
	}
	return strings.TrimLeft(s[i:], "0") != ""
}

// listingDate: before ends with a month and a day, in either order, as
// ls -l writes them before the year ("Nov 26 ", "26 Nov ").
func listingDate(before string) bool {
	f := strings.Fields(before)
	if len(f) < 2 || !strings.HasSuffix(before, " ") {
		return false
	}
	a, b := f[len(f)-2], f[len(f)-1]
	return isMonth(a) && isDay(b) || isDay(a) && isMonth(b)
}

func isMonth(w string) bool {
	return len(w) == 3 && strings.Contains("JanFebMarAprMayJunJulAugSepOctNovDec", w) && w[0] >= 'A' && w[0] <= 'Z'
}

func isDay(w string) bool {
	return len(w) <= 2 && strings.Trim(w, "0123456789") == "" && w != "" && w != "0" && w != "00"
}

// endsPhrase: what follows a counted noun ends the count — the end of
// the line, punctuation (a dot only before a space or the end: "errors.go"
// is a name), or a word summaries go on with ("in 0.2s", "generated").
func endsPhrase(after string) bool {
	rest := strings.TrimLeft(after, " ")
	if rest == "" || strings.IndexByte(",;:)]|(!", rest[0]) >= 0 {
		return true
	}
	if rest[0] == '.' {
		return len(rest) == 1 || rest[1] == ' ' || rest[1] == '\r'
	}
	for _, w := range []string{"in ", "generated", "found", "occurred"} {
		if strings.HasPrefix(rest, w) && len(rest) < len(after) {
			return true
		}
	}
	return false
}

// countAfter: after starts with ": N" or "=N", N above 0 ("failures=2",
// "Errors: 1").
func countAfter(after string) bool {
	rest := strings.TrimLeft(after, " ")
	if rest == "" || rest[0] != ':' && rest[0] != '=' {
		return false
	}
	return nonZeroNumber(strings.TrimLeft(rest[1:], " "))
}

func isWordAt(t string, start, end int) bool {
	before := start == 0 || !isWordByte(t, start-1)
	after := end == len(t) || !isWordByte(t, end)
	return before && after
}

func isWordByte(t string, i int) bool {
	c := t[i]
	if c < utf8.RuneSelf {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i > 0 && !utf8.RuneStart(t[i]) {
		i--
	}
	r, _ := utf8.DecodeRuneInString(t[i:])
	return unicode.IsLetter(r)
}

func nonZeroNumber(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i > 0 && strings.TrimLeft(s[:i], "0") != ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Plain is a line as a terminal shows it, trimmed: what follows its last
// carriage return, without colour codes.
func Plain(line string) string { return plain(line) }

func plain(line string) string {
	t := strings.TrimSpace(line)
	if i := strings.LastIndexByte(t, '\r'); i >= 0 {
		t = strings.TrimSpace(t[i+1:])
	}
	if strings.IndexByte(t, 0x1b) < 0 {
		return t
	}
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		if t[i] != 0x1b {
			b.WriteByte(t[i])
			continue
		}
		i++ // ESC x, or CSI: ESC [ parameters… final byte
		if i < len(t) && t[i] == '[' {
			for i+1 < len(t) && (t[i+1] < 0x40 || t[i+1] > 0x7e) {
				i++
			}
			i++
		}
	}
	return strings.TrimSpace(b.String())
}

// classify says what a line starts.
func classify(line string) marker {
	t := plain(line)
	if t == "" {
		return noMarker
	}
	return matchRules(t, anchorsIn(t))
}

// matchRules runs on t, in order, the rules one of whose anchors is in a.
func matchRules(t string, a anchorSet) marker {
	tables()
	var gated ruleSet
	for w, bits := range a {
		for ; bits != 0; bits &= bits - 1 {
			k := w*64 + mathbits.TrailingZeros64(bits)
			if k >= len(rulesOf) {
				break // not an anchor (tests pass every bit)
			}
			gated[0] |= rulesOf[k][0]
			gated[1] |= rulesOf[k][1]
		}
	}
	for w, bits := range gated {
		for ; bits != 0; bits &= bits - 1 {
			if r := rules[w*64+mathbits.TrailingZeros64(bits)]; r.match(t) {
				return r.kind
			}
		}
	}
	return noMarker
}

// candidates marks the lines that contain an anchor, in one pass over the
// text: at each byte, only the anchors starting with that byte are tried,
// and a line is left as soon as it is marked. A line with a colour code or
// a carriage return inside is marked too: its plain text may hold an
// anchor its bytes do not.
func candidates(text string, lines []string) []bool {
	marked := make([]bool, len(lines))
	tables()
	line := 0
	for i := 0; i+1 < len(text) && line < len(lines); i++ {
		c := text[i]
		if c == '\n' {
			line++
			continue
		}
		if !anchorPairs[uint16(c)<<8|uint16(text[i+1])] {
			continue // no anchor starts with these two bytes: most bytes end here
		}
		if c == 0x1b || c == '\r' && text[i+1] != '\n' || startsAnchor(text[i:], scanFirst[c]) {
			marked[line] = true
			next := strings.IndexByte(text[i:], '\n')
			if next < 0 {
				return marked
			}
			i += next - 1 // the loop's i++ lands on the newline
		}
	}
	return marked
}

// startsAnchor reports whether s (two bytes or more) starts with one of
// the anchors ks.
func startsAnchor(s string, ks []int) bool {
	for _, k := range ks {
		if a := anchors[k]; a[1] == s[1] && strings.HasPrefix(s, a) {
			return true
		}
	}
	return false
}

// anchorSet holds which anchors a line contains: bit k for anchors[k].
type anchorSet [2]uint64

// anchorsIn returns the anchors t contains.
func anchorsIn(t string) anchorSet {
	var s anchorSet
	tables()
	for i := 0; i+1 < len(t); i++ {
		if !anchorPairs[uint16(t[i])<<8|uint16(t[i+1])] {
			continue
		}
		for _, k := range allFirst[t[i]] {
			if a := anchors[k]; a[1] == t[i+1] && strings.HasPrefix(t[i:], a) {
				s[k/64] |= 1 << (k % 64)
			}
		}
	}
	return s
}

// ruleSet holds rules: bit i for rules[i].
type ruleSet [2]uint64

var (
	tablesOnce  sync.Once
	anchors     []string      // every rule's anchors, each once
	rulesOf     []ruleSet     // for anchors[k], the rules it gates
	allFirst    [256][]int    // indexes into anchors, by their first byte
	scanFirst   [256][]int    // the same for the pre-scan: the anchors no other one is part of
	anchorPairs [1 << 16]bool // the first two bytes of some anchor, or ESC or CR and any byte
)

// tables builds the anchor tables. The pre-scan looks for fewer anchors
// than the rules name: "fail" finds every line holding " failed with ";
// the rules are then gated by the exact anchors a line holds.
func tables() {
	tablesOnce.Do(func() {
		if len(rules) > 128 {
			panic("swap: more than 128 failure rules; widen ruleSet")
		}
		for i, r := range rules {
			for _, a := range r.anchors {
				k := slices.Index(anchors, a)
				if k < 0 {
					k = len(anchors)
					anchors = append(anchors, a)
					rulesOf = append(rulesOf, ruleSet{})
					allFirst[a[0]] = append(allFirst[a[0]], k)
					anchorPairs[uint16(a[0])<<8|uint16(a[1])] = true
				}
				rulesOf[k][i/64] |= 1 << (i % 64)
			}
		}
		if len(anchors) > 128 {
			panic("swap: more than 128 failure anchors; widen anchorSet")
		}
		for k, a := range anchors {
			if !slices.ContainsFunc(anchors, func(b string) bool { return b != a && strings.Contains(a, b) }) {
				scanFirst[a[0]] = append(scanFirst[a[0]], k)
			}
		}
		for c := range 256 {
			anchorPairs[0x1b<<8|c] = true
			if c != '\n' {
				anchorPairs['\r'<<8|c] = true
			}
		}
	})
}
