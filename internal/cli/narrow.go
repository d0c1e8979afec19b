package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// narrowOptions pick part of a long text, for show and recall: lines A:B,
// the lines matching a regular expression (with context), or the first
// and last lines. One way at a time, every count positive: a typo never
// prints the whole output by accident.
type narrowOptions struct {
	lines   string
	grep    string
	context countFlag
	head    countFlag
	tail    countFlag
}

func (o *narrowOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.lines, "lines", "", "print lines `A:B` (1-based, inclusive; A: or :B for open ends)")
	fs.StringVar(&o.grep, "grep", "", "print the lines matching the regular expression `RE`, numbered (N:line, like grep -n)")
	fs.Var(&o.context, "C", "with --grep, also print `N` lines of context around each match (N-line)")
	fs.Var(&o.head, "head", "print the first `N` lines (with --tail: the last lines of those)")
	fs.Var(&o.tail, "tail", "print the last `N` lines")
}

// set reports whether any narrowing was asked for.
func (o *narrowOptions) set() bool {
	return o.lines != "" || o.grep != "" || o.head.set || o.tail.set || o.context.set
}

// ways lists the narrowing flags given, one name per way.
func (o *narrowOptions) ways() []string {
	var ways []string
	if o.lines != "" {
		ways = append(ways, "--lines")
	}
	if o.grep != "" {
		ways = append(ways, "--grep")
	}
	if o.head.set || o.tail.set {
		ways = append(ways, "--head/--tail")
	}
	return ways
}

// validate refuses what would print something else than what was meant.
func (o *narrowOptions) validate() error {
	if ways := o.ways(); len(ways) > 1 {
		return usageErrorf("choose one of %s", strings.Join(ways, ", "))
	}
	if err := o.validateCounts(); err != nil {
		return err
	}
	if o.context.set && o.grep == "" {
		return usageErrorf("-C needs --grep: it is the context around matching lines")
	}
	if o.grep != "" {
		if _, err := regexp.Compile(o.grep); err != nil {
			return usageErrorf("bad --grep: %v", err)
		}
	}
	if o.lines != "" {
		if _, _, err := lineRange(o.lines, 1<<31); err != nil {
			return err
		}
	}
	return nil
}

// validateCounts refuses counts that are not numbers of lines.
func (o *narrowOptions) validateCounts() error {
	for _, c := range []struct {
		name string
		n    countFlag
		min  int
	}{{"--head", o.head, 1}, {"--tail", o.tail, 1}, {"-C", o.context, 0}} {
		if c.n.set && c.n.n < c.min {
			return usageErrorf("bad %s %d: want a number of lines, %d or more", c.name, c.n.n, c.min)
		}
	}
	return nil
}

// print writes the part of data asked for (all of it when nothing was).
func (o *narrowOptions) print(w io.Writer, data []byte) error {
	if !o.set() {
		_, err := w.Write(data) // the exact bytes
		return err
	}
	lines := splitLines(data)
	switch {
	case o.lines != "":
		from, to, err := lineRange(o.lines, len(lines))
		if err != nil {
			return err
		}
		return writeLines(w, lines[from:to])
	case o.grep != "":
		return grepLines(w, lines, regexp.MustCompile(o.grep), o.context.n)
	}
	if o.head.set {
		lines = lines[:min(o.head.n, len(lines))]
	}
	if o.tail.set {
		lines = lines[max(0, len(lines)-o.tail.n):]
	}
	return writeLines(w, lines)
}

// splitLines cuts data into lines that keep their newline.
func splitLines(data []byte) []string {
	lines := strings.SplitAfter(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// lineRange parses "A:B", "A:", ":B" or "A" into a slice range.
func lineRange(spec string, n int) (int, int, error) {
	a, b, found := strings.Cut(spec, ":")
	if !found {
		b = a
	}
	from, to := 1, n
	var err error
	if a != "" {
		if from, err = strconv.Atoi(a); err != nil || from < 1 {
			return 0, 0, usageErrorf("bad --lines %q: want A:B with 1 <= A", spec)
		}
	}
	if b != "" {
		if to, err = strconv.Atoi(b); err != nil || to < from {
			return 0, 0, usageErrorf("bad --lines %q: want A:B with A <= B", spec)
		}
	}
	if from > n {
		return 0, 0, fmt.Errorf("--lines %s: there are only %d lines", spec, n)
	}
	return from - 1, min(to, n), nil
}

// grepLines prints matches as "N:line" and context as "N-line", with "--"
// between groups, like grep -n.
func grepLines(w io.Writer, lines []string, re *regexp.Regexp, context int) error {
	return printGroups(w, lines, context, func(i int) int {
		if re.MatchString(strings.TrimRight(lines[i], "\r\n")) {
			return 1
		}
		return 0
	})
}

// printGroups prints the lines group puts in a group (any number but 0)
// as "N:line", and context as "N-line", like grep -n: "--" between lines
// that do not follow each other, or that are of two groups.
func printGroups(w io.Writer, lines []string, context int, group func(i int) int) error {
	last, lastGroup := -1, 0 // the last line printed, and the group of the last line selected
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

// countFlag is a whole-number flag that knows whether it was given, so
// that --head 0 is refused rather than read as "not given".
type countFlag struct {
	n   int
	set bool
}

func (c *countFlag) String() string {
	if c == nil || !c.set {
		return ""
	}
	return strconv.Itoa(c.n)
}

func (c *countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	c.n, c.set = n, true
	return nil
}

func (c *countFlag) Get() any { return c.n }
