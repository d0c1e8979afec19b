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
	if strings.HasPrefix(line, "E   ") || numberedFailure(t) || goCompileError(t) {
		return true // pytest detail, ExUnit/mocha "1) test", go build "x.go:3:4: …"
	}
	for _, p := range linePrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	for _, p := range phrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	for _, p := range exitPhrases {
		if i := strings.Index(t, p); i >= 0 && nonZeroNumber(t[i+len(p):]) {
			return true
		}
	}
	return hasFailureWord(t) || hasErrorName(t)
}

// hasFailureWord finds one of words as a whole word, not negated.
func hasFailureWord(t string) bool {
	for _, w := range words {
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

// hasErrorName finds exception names such as "ValueError:" or
// "java.lang.NullPointerException".
func hasErrorName(t string) bool {
	for _, suffix := range []string{"Error:", "Exception:", "Exception"} {
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
		for _, a := range first[c] {
			// Anchors are at least two bytes long; most tries end here.
			if a[1] == text[i+1] && strings.HasPrefix(text[i:], a) {
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

var (
	anchorsOnce sync.Once
	anchors     []string
	byFirstByte [256][]string
)

// anchorTable is anchorList indexed by first byte.
func anchorTable() *[256][]string {
	anchorList()
	return &byFirstByte
}

// anchorList is every string a failure line must contain for some rule of
// SignalsFailure to match, reduced to those no other one is part of
// ("fail" makes "failed" redundant; case matters).
func anchorList() []string {
	anchorsOnce.Do(func() {
		all := []string{"E   ", ") ", ".go:", "Error:", "Exception"}
		for _, list := range [][]string{linePrefixes, words, phrases, exitPhrases} {
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
				anchors = append(anchors, a)
				byFirstByte[a[0]] = append(byFirstByte[a[0]], a)
			}
		}
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
