// Package excerpt picks the part of a long text that was asked for: lines
// A:B, the lines matching a regular expression (with context), the first
// and last lines, or every failure with the lines that give its cause,
// numbered as grep -n numbers them. `ctxkeep show` and `ctxkeep recall`
// narrow through it, and so do the MCP tools of the same names, with the
// same checks: one way at a time, every count a number of lines, so that a
// typo never returns a whole 200 kB output by accident.
package excerpt

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// ErrBadRequest marks an error in what was asked (a count that is not a
// number of lines, a bad regular expression, two ways at once): the
// command line's usage errors, an MCP tool's bad arguments.
var ErrBadRequest = errors.New("bad request")

// Count is a number of lines that knows whether it was given, so that a
// head of 0 is refused rather than read as "not given".
type Count struct {
	N   int
	Set bool
}

// Options say which part of a text to take; the zero value takes it all.
type Options struct {
	Lines    string // "A:B" (1-based, inclusive), "A:", ":B" or "A"
	Grep     string // a regular expression (RE2 syntax)
	Context  Count  // with Grep or Failures: lines around each
	Head     Count  // the first N lines (with Tail: the last lines of those)
	Tail     Count  // the last N lines
	Failures bool   // every failure with its cause (swap.Failures)
	// Names are the parameters' names where they were given (the
	// command line's --lines and -C); nil: their own names (lines,
	// context), as the MCP tools take them.
	Names map[string]string
}

// CLINames are the command line's flags.
var CLINames = map[string]string{
	"lines": "--lines", "grep": "--grep", "context": "-C", "head": "--head", "tail": "--tail", "failures": "--failures",
}

// name is what the caller calls a parameter.
func (o Options) name(param string) string {
	if n, ok := o.Names[param]; ok {
		return n
	}
	return param
}

func (o Options) badf(format string, args ...any) error {
	return ctxkeep.Errorf(ErrBadRequest, format, args...)
}

// Set reports whether any narrowing was asked for.
func (o Options) Set() bool {
	return o.Lines != "" || o.Grep != "" || o.Head.Set || o.Tail.Set || o.Context.Set || o.Failures
}

// Ways lists the ways of narrowing asked for, one name per way.
func (o Options) Ways() []string {
	var ways []string
	if o.Lines != "" {
		ways = append(ways, o.name("lines"))
	}
	if o.Grep != "" {
		ways = append(ways, o.name("grep"))
	}
	if o.Head.Set || o.Tail.Set {
		ways = append(ways, o.name("head")+"/"+o.name("tail"))
	}
	if o.Failures {
		ways = append(ways, o.name("failures"))
	}
	return ways
}

// Validate refuses what would return something else than what was meant.
// Its errors wrap ErrBadRequest.
func (o Options) Validate() error {
	if ways := o.Ways(); len(ways) > 1 {
		return o.badf("choose one of %s", strings.Join(ways, ", "))
	}
	for _, c := range []struct {
		param string
		n     Count
		min   int
	}{{"head", o.Head, 1}, {"tail", o.Tail, 1}, {"context", o.Context, 0}} {
		if c.n.Set && c.n.N < c.min {
			return o.badf("bad %s %d: want a number of lines, %d or more", o.name(c.param), c.n.N, c.min)
		}
	}
	if o.Context.Set && o.Grep == "" && !o.Failures {
		return o.badf("%s needs %s: it is the context around matching lines", o.name("context"), o.name("grep"))
	}
	if o.Grep != "" {
		if _, err := regexp.Compile(o.Grep); err != nil {
			return o.badf("bad %s: %v", o.name("grep"), err)
		}
	}
	if o.Lines != "" {
		if _, _, err := o.lineRange(1 << 31); err != nil {
			return err
		}
	}
	return nil
}

// Write writes the part of data asked for, or all of it, byte for byte,
// when nothing was. Lines past the end of data are an error that does not
// wrap ErrBadRequest: the request was well formed.
func (o Options) Write(w io.Writer, data []byte) error {
	if !o.Set() {
		_, err := w.Write(data) // the exact bytes
		return err
	}
	lines := SplitLines(data)
	switch {
	case o.Failures:
		return failures(w, data, lines, o.Context.N)
	case o.Lines != "":
		from, to, err := o.lineRange(len(lines))
		if err != nil {
			return err
		}
		return writeLines(w, lines[from:to])
	case o.Grep != "":
		matched, err := grepLines(w, lines, regexp.MustCompile(o.Grep), o.Context.N)
		if err == nil && !matched {
			err = fmt.Errorf("%w: none of the %d lines matches %s %q", ErrNoMatch, len(lines), o.name("grep"), o.Grep)
		}
		return err
	}
	if o.Head.Set {
		lines = lines[:min(o.Head.N, len(lines))]
	}
	if o.Tail.Set {
		lines = lines[max(0, len(lines)-o.Tail.N):]
	}
	return writeLines(w, lines)
}

// ErrNoMatch is returned by Write when grep matches no line, or the text
// has no failure line to print: nothing was written, and an empty answer
// would say nothing. It wraps ctxkeep.ErrNotFound.
var ErrNoMatch = ctxkeep.Errorf(ctxkeep.ErrNotFound, "nothing to print")

// SplitLines cuts data into lines that keep their newline.
func SplitLines(data []byte) []string {
	lines := strings.SplitAfter(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// lineRange parses Lines ("A:B", "A:", ":B" or "A") into a slice range of
// n lines.
func (o Options) lineRange(n int) (int, int, error) {
	spec := o.Lines
	a, b, found := strings.Cut(spec, ":")
	if !found {
		b = a
	}
	from, to := 1, n
	var err error
	tooLarge := func(err error, s string) error {
		if errors.Is(err, strconv.ErrRange) {
			return o.badf("bad %s %q: %s is too large to be a line number", o.name("lines"), text.Cut(spec, 48), text.Cut(s, 24))
		}
		return nil
	}
	if a != "" {
		if from, err = strconv.Atoi(a); tooLarge(err, a) != nil {
			return 0, 0, tooLarge(err, a)
		} else if err != nil || from < 1 {
			return 0, 0, o.badf("bad %s %q: want A:B with 1 <= A", o.name("lines"), spec)
		}
	}
	if b != "" {
		if to, err = strconv.Atoi(b); tooLarge(err, b) != nil {
			return 0, 0, tooLarge(err, b)
		} else if err != nil || to < from {
			return 0, 0, o.badf("bad %s %q: want A:B with A <= B", o.name("lines"), spec)
		}
	}
	if from > n {
		return 0, 0, fmt.Errorf("%s %s: there are only %d lines", o.name("lines"), spec, n)
	}
	return from - 1, min(to, n), nil
}

// failures writes every failure with the lines that give its cause,
// numbered like grep -n, one failure apart from the next with "--" (and
// context lines around each line).
func failures(w io.Writer, data []byte, lines []string, context int) error {
	fs, _ := swap.Failures(string(data), -1)
	if len(fs) == 0 {
		return fmt.Errorf("%w: none of the %d lines is a failure line", ErrNoMatch, len(lines))
	}
	failure := make([]int, len(lines)) // the failure (from 1) a line belongs to, or 0
	for k, f := range fs {
		for _, l := range f.Lines() {
			if l.N >= 1 && l.N <= len(lines) {
				failure[l.N-1] = k + 1
			}
		}
	}
	return writeGroups(w, lines, context, func(i int) int { return failure[i] })
}

// grepLines writes matches as "N:line" and context as "N-line", with "--"
// between groups, like grep -n.
// It reports whether any line matched.
func grepLines(w io.Writer, lines []string, re *regexp.Regexp, context int) (bool, error) {
	matched := false
	err := writeGroups(w, lines, context, func(i int) int {
		if re.MatchString(strings.TrimRight(lines[i], "\r\n")) {
			matched = true
			return 1
		}
		return 0
	})
	return matched, err
}

// writeGroups writes the lines group puts in a group (any number but 0)
// as "N:line", and context as "N-line", like grep -n: "--" between lines
// that do not follow each other, or that are of two groups.
func writeGroups(w io.Writer, lines []string, context int, group func(i int) int) error {
	last, lastGroup := -1, 0 // the last line written, and the group of the last line selected
	for i := range lines {
		g := group(i)
		if g == 0 {
			continue
		}
		from := max(0, i-context, last+1)
		if last >= 0 && (from > last+1 || g != lastGroup && i > last) {
			fmt.Fprintln(w, "--")
		}
		to := min(len(lines)-1, i+context)
		for j := from; j <= to; j++ {
			sep := "-"
			if group(j) != 0 {
				sep = ":"
			}
			if _, err := fmt.Fprintf(w, "%d%s%s", j+1, sep, withNewline(lines[j])); err != nil {
				return err
			}
		}
		last, lastGroup = to, g
	}
	return nil
}

// writeLines writes lines that keep their own newlines.
func writeLines(w io.Writer, lines []string) error {
	for _, l := range lines {
		if _, err := io.WriteString(w, l); err != nil {
			return err
		}
	}
	return nil
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
