package swap

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A view never hides a failure: every line of an output that signals one
// (an error, a failed test, a panic, a traceback, a non-zero exit) is a key
// line, shown before anything else, up to a cap, with the count of the rest.
//
// The rules are plain string tests rather than regular expressions: they
// run on every large output in a hook process, and a megabyte of build log
// must be scanned in a few milliseconds.

// HasFailures reports whether a tool's output is the output of a run,
// where failure lines mean something. A file's content (Read) or a search
// result (Grep, Glob) is not: a line of code that says "error" is no
// failure.
func HasFailures(tool string) bool {
	return tool != "Read" && tool != "Grep" && tool != "Glob"
}

// linePrefixes start a line that signals a failure (after leading space).
var linePrefixes = []string{
	"--- FAIL", "FAIL", "FAILED", "FAILURE", "ERROR", "Error:", "error:", "error[", "ERR!", "npm ERR!",
	"panic:", "fatal:", "Fatal:", "FATAL", "Traceback", "Exception in thread", "Caused by:",
	"** (", "== Compilation error", "[ERROR]", "[FAIL]", "not ok ", "✗", "✘", "✕", "×", "●",
	"Segmentation fault", "Aborted", "Killed",
}

// words signal a failure anywhere in a line, as whole words, unless
// negated ("0 errors", "no failures", "errors: 0").
var words = []string{
	"error", "errors", "Error", "Errors", "ERROR", "ERRORS",
	"fail", "fails", "failed", "failing", "failure", "failures", "Fail", "Failed", "Failure", "Failures", "FAIL", "FAILED", "FAILURES",
	"panic", "panicked", "Panic", "PANIC", "Traceback", "Exception", "exception", "fatal", "Fatal",
}

// phrases signal a failure anywhere in a line.
var phrases = []string{
	"Segmentation fault", "segmentation fault", "core dumped", "undefined reference", "No such file or directory",
	"command not found", "Permission denied", "permission denied", "Could not", "could not", "Cannot find", "cannot find",
	"returned non-zero", "non-zero exit",
}

// exitPhrases are followed by a status; they signal a failure unless it is 0.
var exitPhrases = []string{"exit status ", "Exit status ", "exit code ", "Exit code ", "exited with code ", "exited with status "}

// SignalsFailure reports whether one line of output signals a failure.
func SignalsFailure(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	// Every rule needs one of the anchors: the rules whose anchor the line
	// lacks are not tried (a line of a Go test log holds ".go:" and little
	// else, and would otherwise pay for some sixty searches).
	a := anchorsIn(line)
	if a == (anchorSet{}) {
		return false
	}
	return matchesRules(line, t, a)
}

// matchesRules runs the rules whose anchor is in a on line (t trimmed).
func matchesRules(line, t string, a anchorSet) bool {
	r := ruleAnchors
	if a.has(r.pytest) && strings.HasPrefix(line, "E   ") || a.has(r.numbered) && numberedFailure(t) || a.has(r.goFile) && goCompileError(t) {
		return true // pytest detail, ExUnit/mocha "1) test", go build "x.go:3:4: …"
	}
	for i, p := range linePrefixes {
		if a.has(r.prefixes[i]) && strings.HasPrefix(t, p) {
			return true
		}
	}
	for i, p := range phrases {
		if a.has(r.phrases[i]) && strings.Contains(t, p) {
			return true
		}
	}
	for i, p := range exitPhrases {
		if !a.has(r.exits[i]) {
			continue
		}
		if j := strings.Index(t, p); j >= 0 && nonZeroNumber(t[j+len(p):]) {
			return true
		}
	}
	return hasFailureWord(t, a) || hasErrorName(t, a)
}

// hasFailureWord finds one of words as a whole word, not negated.
func hasFailureWord(t string, a anchorSet) bool {
	for i, w := range words {
		if !a.has(ruleAnchors.words[i]) {
			continue
		}
		for i := 0; ; {
			j := strings.Index(t[i:], w)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(w)
			if isWordAt(t, start, end) && !negated(t, start, end) {
				return true
			}
			i = end
		}
	}
	return false
}

var errorNameSuffixes = []string{"Error:", "Exception:", "Exception"}

// hasErrorName finds exception names such as "ValueError:" or
// "java.lang.NullPointerException".
func hasErrorName(t string, a anchorSet) bool {
	for k, suffix := range errorNameSuffixes {
		if !a.has(ruleAnchors.errorNames[k]) {
			continue
		}
		for i := 0; ; {
			j := strings.Index(t[i:], suffix)
			if j < 0 {
				break
			}
			start := i + j
			end := start + len(suffix)
			if start > 0 && isLetter(t, start-1) && !(end < len(t) && isLetter(t, end)) {
				return true
			}
			i = end
		}
	}
	return false
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
	r, _ := utf8.DecodeRuneInString(t[i:])
	return unicode.IsLetter(r)
}

func isLetter(t string, i int) bool {
	c := t[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// negated recognises "0 errors", "no failures", "without errors",
// "errors: 0", "failed=0".
func negated(t string, start, end int) bool {
	before := strings.ToLower(t[:start])
	for _, n := range []string{"0 ", "no ", "without ", "zero "} {
		if strings.HasSuffix(before, n) {
			return true
		}
	}
	after := strings.TrimLeft(t[end:], " :=")
	return after != t[end:] && strings.HasPrefix(after, "0") && (len(after) == 1 || !isDigit(after[1]))
}

// numberedFailure recognises "1) test …" (ExUnit, mocha) and "1) Foo::bar" (RSpec, PHPUnit).
func numberedFailure(t string) bool {
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	return i > 0 && strings.HasPrefix(t[i:], ") ") && i+2 < len(t)
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

func nonZeroNumber(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i > 0 && strings.TrimLeft(s[:i], "0") != ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Line is one line of an output, numbered from 1.
type Line struct {
	N    int
	Text string
}

// FailureLines returns the first max lines of text that signal a failure,
// and how many there are in all.
func FailureLines(text string, max int) (first []Line, total int) {
	return failureLines(text, splitLines(text), max)
}

// failureLines is FailureLines for text already split into lines. The
// rules run only on candidate lines, those holding one of the anchors:
// a few fast searches through the whole text instead of some fifty per
// line (a megabyte of log in milliseconds rather than tens of them).
func failureLines(text string, lines []string, max int) (first []Line, total int) {
	for i, ok := range candidates(text, lines) {
		if ok && SignalsFailure(lines[i]) {
			total++
			if len(first) < max {
				first = append(first, Line{N: i + 1, Text: lines[i]})
			}
		}
	}
	return first, total
}

// candidates marks the lines that contain an anchor, in one pass over the
// text: at each byte, only the anchors starting with that byte are tried,
// and a line is left as soon as it is marked.
func candidates(text string, lines []string) []bool {
	marked := make([]bool, len(lines))
	first := anchorTable()
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
		for _, k := range first[c] {
			if a := anchors[k]; a[1] == text[i+1] && strings.HasPrefix(text[i:], a) {
				marked[line] = true
				next := strings.IndexByte(text[i:], '\n')
				if next < 0 {
					return marked
				}
				i += next - 1 // the loop's i++ lands on the newline
				break
			}
		}
	}
	return marked
}

// anchorSet holds which anchors a line contains: bit k for anchors[k].
type anchorSet [2]uint64

// anchorsIn returns the anchors line contains.
func anchorsIn(line string) anchorSet {
	var s anchorSet
	first := anchorTable()
	for i := 0; i+1 < len(line); i++ {
		if !anchorPairs[uint16(line[i])<<8|uint16(line[i+1])] {
			continue
		}
		for _, k := range first[line[i]] {
			if a := anchors[k]; a[1] == line[i+1] && strings.HasPrefix(line[i:], a) {
				s[k/64] |= 1 << (k % 64)
			}
		}
	}
	return s
}

// has reports whether the set holds anchor k.
func (s anchorSet) has(k int) bool { return s[k/64]&(1<<(k%64)) != 0 }

var (
	anchorsOnce sync.Once
	anchors     []string
	byFirstByte [256][]int    // indexes into anchors, by their first byte
	anchorPairs [1 << 16]bool // the first two bytes of some anchor
	// ruleAnchors gives, for every pattern of the rules, the index of an
	// anchor it contains: a line without that anchor cannot match it.
	ruleAnchors struct {
		pytest, numbered, goFile                    int
		prefixes, words, phrases, exits, errorNames []int
	}
)

// anchorTable is anchorList indexed by first byte.
func anchorTable() *[256][]int {
	anchorList()
	return &byFirstByte
}

// anchorList is every string a failure line must contain for some rule of
// SignalsFailure to match, reduced to those no other one is part of
// ("fail" makes "failed" redundant; case matters).
func anchorList() []string {
	anchorsOnce.Do(func() {
		all := []string{"E   ", ") ", ".go:"}
		for _, list := range [][]string{errorNameSuffixes, linePrefixes, words, phrases, exitPhrases} {
			all = append(all, list...)
		}
		for _, a := range all {
			redundant := false
			for _, b := range all {
				if b != a && strings.Contains(a, b) {
					redundant = true
					break
				}
			}
			if !redundant && !slices.Contains(anchors, a) {
				byFirstByte[a[0]] = append(byFirstByte[a[0]], len(anchors))
				anchorPairs[uint16(a[0])<<8|uint16(a[1])] = true
				anchors = append(anchors, a)
			}
		}
		if len(anchors) > 128 {
			panic("swap: more than 128 failure anchors; widen anchorSet")
		}
		of := func(p string) int {
			return slices.IndexFunc(anchors, func(a string) bool { return strings.Contains(p, a) })
		}
		ofAll := func(ps []string) []int {
			out := make([]int, len(ps))
			for i, p := range ps {
				out[i] = of(p)
			}
			return out
		}
		r := &ruleAnchors
		r.pytest, r.numbered, r.goFile = of("E   "), of(") "), of(".go:")
		r.prefixes, r.words, r.phrases, r.exits, r.errorNames = ofAll(linePrefixes), ofAll(words), ofAll(phrases), ofAll(exitPhrases), ofAll(errorNameSuffixes)
	})
	return anchors
}

// hasAnchor is what candidates computes, for one line (tests).
func hasAnchor(line string) bool {
	for _, a := range anchorList() {
		if strings.Contains(line, a) {
			return true
		}
	}
	return false
}
