// Package linediff renders the difference between two small texts as a
// unified diff, so that a dry run can show a user exactly what ctxkeep would
// change in one of their files before it touches it.
//
// It uses Myers' O(ND) algorithm, which is fast when the texts are similar
// (the common case: a few lines added to a settings file). Memory grows with
// the square of the number of differing lines, which is fine for the files it
// is meant for and not for large, unrelated inputs.
package linediff

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Unified returns a unified diff from a to b, labelled aName and bName, with
// context unchanged lines around each change. It returns "" when a and b are
// equal.
func Unified(aName, bName string, a, b []byte, context int) string {
	if bytes.Equal(a, b) {
		return ""
	}
	edits := diff(splitLines(string(a)), splitLines(string(b)))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for _, h := range hunks(edits, max(context, 0)) {
		writeHunk(&out, h)
	}
	return out.String()
}

// splitLines cuts s after every newline, keeping the newlines, so that a
// final line without one differs from the same line with one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// An edit is one line of the diff: kept (' '), deleted ('-') or inserted
// ('+'). aLine and bLine count the lines of a and b that come before it.
type edit struct {
	op           byte
	text         string
	aLine, bLine int
}

// diff returns a shortest edit script turning a into b.
func diff(a, b []string) []edit {
	// Equal ends are common and cheap to strip; Myers then works on the
	// middle only, which keeps its quadratic memory small.
	pre := commonPrefix(a, b)
	suf := commonSuffix(a[pre:], b[pre:])
	mid := myers(a[pre:len(a)-suf], b[pre:len(b)-suf])

	edits := make([]edit, 0, pre+len(mid)+suf)
	x, y := 0, 0
	emit := func(op byte) {
		e := edit{op: op, aLine: x, bLine: y}
		switch op {
		case ' ':
			e.text = a[x]
			x, y = x+1, y+1
		case '-':
			e.text = a[x]
			x++
		case '+':
			e.text = b[y]
			y++
		}
		edits = append(edits, e)
	}
	for range pre {
		emit(' ')
	}
	for _, op := range mid {
		emit(op)
	}
	for range suf {
		emit(' ')
	}
	return edits
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// myers returns the operations (' ', '-', '+') of a shortest edit script
// from a to b, as described in "An O(ND) Difference Algorithm and Its
// Variations" (Myers, 1986).
func myers(a, b []string) []byte {
	n, m := len(a), len(b)
	limit := n + m
	// v[off+k] is the furthest x reached on diagonal k = x - y.
	off := limit + 1
	v := make([]int, 2*limit+3)
	// trace[d] keeps v for diagonals -d..d after step d, for the walk back.
	var trace [][]int
	for d := 0; d <= limit; d++ {
		if d > 0 {
			trace = append(trace, slices.Clone(v[off-d+1:off+d]))
		}
		for k := -d; k <= d; k += 2 {
			x := v[off+k-1] + 1 // one deletion from diagonal k-1
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // one insertion from diagonal k+1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	panic("linediff: unreachable: an edit script always exists")
}

// backtrack walks the trace from (n, m) back to (0, 0), retracing at each
// step the choice myers made, and returns the operations in order.
func backtrack(trace [][]int, n, m int) []byte {
	var ops []byte
	x, y := n, m
	for d := len(trace); d > 0; d-- {
		prev := trace[d-1] // diagonals -(d-1)..d-1, at index k+d-1
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		// The step was one insertion or deletion followed by a run of kept lines.
		op, midX := byte('+'), prevX
		if prevK == k-1 {
			op, midX = '-', prevX+1
		}
		for x > midX {
			ops = append(ops, ' ')
			x, y = x-1, y-1
		}
		ops = append(ops, op)
		x, y = prevX, prevY
	}
	for ; x > 0; x-- {
		ops = append(ops, ' ')
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}

// hunks groups the changes with up to context kept lines on each side;
// changes separated by at most 2*context kept lines share a hunk.
func hunks(edits []edit, context int) [][]edit {
	near := make([]bool, len(edits))
	last := -1 << 30 // index of the latest change seen
	for i, e := range edits {
		if e.op != ' ' {
			last = i
		}
		near[i] = i-last <= context
	}
	last = 1 << 30
	for i := len(edits) - 1; i >= 0; i-- {
		if edits[i].op != ' ' {
			last = i
		}
		near[i] = near[i] || last-i <= context
	}

	var out [][]edit
	for i := 0; i < len(edits); {
		if !near[i] {
			i++
			continue
		}
		j := i
		for j < len(edits) && near[j] {
			j++
		}
		out = append(out, edits[i:j])
		i = j
	}
	return out
}

func writeHunk(out *strings.Builder, h []edit) {
	var aCount, bCount int
	for _, e := range h {
		if e.op != '+' {
			aCount++
		}
		if e.op != '-' {
			bCount++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(h[0].aLine, aCount), hunkRange(h[0].bLine, bCount))
	for _, e := range h {
		out.WriteByte(e.op)
		out.WriteString(e.text)
		if !strings.HasSuffix(e.text, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk's range the way GNU diff does: an empty range
// names the line before it, and a count of one is left out.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	default:
		return fmt.Sprintf("%d,%d", before+1, count)
	}
}
