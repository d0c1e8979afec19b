package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

type showOptions struct {
	lines    string
	grep     string
	context  int
	head     int
	tail     int
	failures bool
	info     bool
}

// runShow prints a stored output, or a part of it, exactly as the tool
// produced it. Every call counts as a retrieval (retention keeps retrieved
// outputs longer; stats report the re-fetch rate).
func runShow(ctx context.Context, a *app, args []string) error {
	var o showOptions
	fs := a.flags("show")
	fs.StringVar(&o.lines, "lines", "", "print lines `A:B` (1-based, inclusive; A: or :B for open ends)")
	fs.StringVar(&o.grep, "grep", "", "print the lines matching the regular expression `RE`, numbered")
	fs.IntVar(&o.context, "C", 0, "with --grep or --failures, print `N` lines of context around each line")
	fs.IntVar(&o.head, "head", 0, "print the first `N` lines")
	fs.IntVar(&o.tail, "tail", 0, "print the last `N` lines")
	fs.BoolVar(&o.failures, "failures", false, "print every failure with the lines that give its cause, numbered")
	fs.BoolVar(&o.info, "info", false, "print what is known of the entry instead of its content")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("show takes one entry id").withHint("run `ctxkeep list` to see the ids")
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	e, err := st.Entry(ctx, pos[0])
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		return hint(err, "run `ctxkeep list --all` to see the stored outputs")
	}
	if err != nil {
		return err
	}
	if o.info {
		return a.printJSON(e)
	}
	data, err := st.Open(ctx, e.Hash)
	if errors.Is(err, ctxkeep.ErrCorrupt) {
		return hint(err, "the stored copy of %s is damaged and will not be shown; run `ctxkeep doctor`", e.ID)
	}
	if err != nil {
		return err
	}
	if err := o.print(a.Stdout, data); err != nil {
		return err
	}
	return st.Touch(ctx, e.ID, a.Now()) // only what was printed counts as retrieved
}

func (o showOptions) print(w io.Writer, data []byte) error {
	if o.lines == "" && o.grep == "" && o.head == 0 && o.tail == 0 && !o.failures {
		_, err := w.Write(data) // the exact bytes
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	switch {
	case o.lines != "":
		from, to, err := lineRange(o.lines, len(lines))
		if err != nil {
			return err
		}
		return writeAll(w, lines[from:to])
	case o.head > 0:
		return writeAll(w, lines[:min(o.head, len(lines))])
	case o.tail > 0:
		return writeAll(w, lines[max(0, len(lines)-o.tail):])
	case o.failures:
		return printFailures(w, lines, string(data), o.context)
	}
	return grepLines(w, lines, o.grep, o.context)
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
		return 0, 0, fmt.Errorf("--lines %s: the output has only %d lines", spec, n)
	}
	return from - 1, min(to, n), nil
}

// grepLines prints matches as "N:line" and context as "N-line", with "--"
// between groups, like grep -n.
func grepLines(w io.Writer, lines []string, expr string, context int) error {
	re, err := regexp.Compile(expr)
	if err != nil {
		return usageErrorf("bad --grep: %v", err)
	}
	return printGroups(w, lines, context, func(i int) int {
		if re.MatchString(strings.TrimRight(lines[i], "\r\n")) {
			return 1
		}
		return 0
	})
}

// printFailures prints every failure with the lines that give its cause,
// numbered like grep -n, one failure apart from the next with "--" (and
// -C N lines of context around each line).
func printFailures(w io.Writer, lines []string, text string, context int) error {
	fs, _ := swap.Failures(text, -1)
	failure := make([]int, len(lines)) // the failure (from 1) a line belongs to, or 0
	for k, f := range fs {
		for _, l := range f.Lines() {
			failure[l.N-1] = k + 1
		}
	}
	return printGroups(w, lines, context, func(i int) int { return failure[i] })
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
			fmt.Fprintf(w, "%d%s%s", j+1, sep, withNewline(lines[j]))
		}
		last, lastGroup = to, g
	}
	return nil
}

func writeAll(w io.Writer, lines []string) error {
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
