package mcp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep/internal/excerpt"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// MaxResult bounds what one call returns, in characters: a larger result
// is itself narrowed to its first and last lines, with a line between
// them saying what was left out and how to ask for it. Within it, a
// result is exact.
const MaxResult = 20000

// bound keeps out within MaxResult characters. narrowed says whether out
// is already a part (numbered lines): then its line numbers are not the
// text's, and the way to the rest is a closer narrowing.
func bound(out string, narrowed bool) string {
	total := utf8.RuneCountInString(out)
	if total <= MaxResult {
		return out
	}
	lines := excerpt.SplitLines([]byte(out))
	room := MaxResult * 9 / 20 // for each end; the rest is the note's
	head, headRunes, cut := edge(lines, room, false)
	tail, tailRunes, _ := edge(lines[len(head):], room, true)
	from, to := len(head)+1, len(lines)-len(tail) // the lines left out, from 1
	shown := ""
	if cut {
		from, shown = 1, ", line 1 shown in part"
		head[0] += "\n"
	}
	left := total - headRunes - tailRunes
	var note string
	switch {
	case narrowed:
		note = fmt.Sprintf("[ctxkeep: lines %d–%d of the %d lines of this result left out (%d characters%s); narrow further: a closer grep, or fewer lines]\n",
			from, to, len(lines), left, shown)
	default:
		note = fmt.Sprintf("[ctxkeep: lines %d–%d of %d left out (%d characters%s); ask for them with lines=\"%d:%d\", in parts, or with grep]\n",
			from, to, len(lines), left, shown, from, to)
	}
	return strings.Join(head, "") + note + strings.Join(tail, "")
}

// edge takes whole lines from the start of lines (from the end when
// fromEnd) within room characters, and counts them. A first line longer
// than room alone is cut (cut says so), so that a single huge line still
// shows how it begins.
func edge(lines []string, room int, fromEnd bool) (picked []string, used int, cut bool) {
	for k := range lines {
		i := k
		if fromEnd {
			i = len(lines) - 1 - k
		}
		n := utf8.RuneCountInString(lines[i])
		if used+n > room {
			if k == 0 && !fromEnd {
				part := strings.TrimSuffix(text.Cut(lines[i], room), text.Ellipsis)
				return []string{part}, utf8.RuneCountInString(part), true
			}
			break
		}
		used += n
		picked = append(picked, lines[i])
	}
	if fromEnd {
		for i, j := 0, len(picked)-1; i < j; i, j = i+1, j-1 {
			picked[i], picked[j] = picked[j], picked[i]
		}
	}
	return picked, used, false
}
