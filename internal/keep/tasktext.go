package keep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// The task in progress is given back as the agent read it (its
// description, an issue tracker's output for it): the agent works to its
// acceptance criteria, and quotes them, long after it read them. A task's
// text is longer than its share of the block, so its lines are chosen:
// those under a heading of acceptance (criteria, definition of done,
// requirements, expected…) first, then the rest of the description and
// specification in their order, last the lists of files and the tracker's
// links to other tasks (the files are in their own section, the tasks in
// theirs). The chosen lines are written in their order.

// activeTextShare is the room of the task texts in the restore block.
const activeTextShare = 3200

// minText is the shortest text of a task worth giving back: a title, or
// a line, says no more than the task list does.
const minText = 40

// minTaskText is the least room worth giving one task's text.
const minTaskText = 400

// taskTexts are the texts of the tasks the session works on, within share
// bytes: a heading line per task, then its chosen lines, indented. The
// task in progress comes first; then the task completed last, when
// completing it was the last the session did with its tasks (it commits,
// it reports, it quotes it still); then the other active tasks, the latest
// read first.
func taskTexts(s archive.State, share int, r swap.Retrieval) (lines []string, shown []archive.Task) {
	all := append(slices.Clone(s.Tasks), s.Todos...)
	latest := -1
	for i, t := range all {
		if latest < 0 || t.Seq > all[latest].Seq {
			latest = i
		}
	}
	var ts []archive.Task
	for i, t := range all {
		if len(strings.TrimSpace(t.Text)) >= minText && (t.Status != "completed" && t.Status != "deleted" || i == latest && t.Status == "completed") {
			ts = append(ts, t)
		}
	}
	rank := func(t archive.Task) int {
		switch t.Status {
		case "in_progress":
			return 0
		case "completed":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(ts, func(a, b archive.Task) int {
		if rank(a) != rank(b) {
			return rank(a) - rank(b)
		}
		return b.Seq - a.Seq
	})
	room := share - len("\n## The task in progress, as read\n") - moreLen
	for i, t := range ts {
		n := room
		switch {
		case i == 0 && len(ts) > 1 && t.Status == "in_progress":
			n = room * 2 / 3 // the task in progress first, and some room for the next
		case i == 0 && len(ts) > 1:
			n = room / 2 // none in progress: the one done last, and the next
		}
		head := fmt.Sprintf("### %s [%s]: %s (read in %s)", taskName(t), t.Status, text.FirstLine(t.Subject), t.TextKey)
		if n < minTaskText {
			break
		}
		chosen := chooseLines(t, n-len(head)-1, r)
		lines = append(lines, head)
		shown = append(shown, t)
		for _, l := range chosen {
			lines = append(lines, l)
			room -= len(l) + 1
		}
		room -= len(head) + 1
	}
	return lines, shown
}

// taskName is how a task is named: #N for the client's task tools, the
// tracker's id otherwise.
func taskName(t archive.Task) string {
	if isNumber(t.ID) {
		return "#" + t.ID
	}
	return t.ID
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// textLine is a line of a task's text: its class (headingClass) and its
// place.
type textLine struct {
	text  string
	class int
	at    int
}

// chooseLines chooses lines of a task's text within n bytes, in their
// order; a last line says how many were left out, and where the whole
// text is.
func chooseLines(t archive.Task, n int, r swap.Retrieval) []string {
	var ls []textLine
	class := 1
	for i, l := range strings.Split(t.Text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "", i == 0 && strings.Contains(l, t.ID) && t.ID != "":
			continue // the tracker's heading: the task's own line says it
		case isHeading(trimmed):
			class = headingClass(trimmed)
			ls = append(ls, textLine{strings.TrimLeft(trimmed, "# "), class, i})
			continue
		case metadata(trimmed):
			continue
		}
		c := class
		if mostlyPath(trimmed) {
			c = max(c, 3)
		}
		ls = append(ls, textLine{text.Cut(strings.TrimRight(l, " "), maxItem), c, i})
	}
	order := slices.Clone(ls)
	slices.SortStableFunc(order, func(a, b textLine) int { return a.class - b.class })
	keep := map[int]bool{}
	used, left := 0, 0
	for _, l := range order {
		if l.class >= 3 || used+len(l.text)+1 > n-60 {
			left++
			continue
		}
		keep[l.at] = true
		used += len(l.text) + 1
	}
	var out []string
	for _, l := range ls {
		if keep[l.at] && !(isHeading(strings.TrimSpace(l.text)) && !keptUnder(ls, l.at, keep)) {
			out = append(out, l.text)
		}
	}
	if left > 0 {
		out = append(out, fmt.Sprintf("… %d more lines: %s", left, r.Recall(t.TextKey)))
	}
	return out
}

// keptUnder reports whether a line under the heading at line at is kept.
func keptUnder(ls []textLine, at int, keep map[int]bool) bool {
	for _, l := range ls {
		if l.at > at {
			if isHeading(strings.TrimSpace(l.text)) {
				return false
			}
			if keep[l.at] {
				return true
			}
		}
	}
	return false
}

// isHeading reports whether a line of a task's text heads a part of it:
// "## Goal", "DESCRIPTION", "Definition of Done:".
func isHeading(l string) bool {
	switch {
	case strings.HasPrefix(l, "#"):
		return true
	case strings.HasPrefix(l, "-"), strings.HasPrefix(l, "*"), strings.HasPrefix(l, "•"):
		return false
	case strings.HasSuffix(l, ":") && len(l) < 60:
		return true
	}
	return len(l) > 2 && len(l) < 40 && strings.ToUpper(l) == l && strings.ToLower(l) != l
}

// headingClass ranks the part a heading starts: what the task is done
// against first, its files and links to other tasks last.
func headingClass(h string) int {
	h = strings.ToLower(h)
	for _, w := range []string{"accept", "criteria", "definition of done", "done when", "requirement", "expected", "must", "verify", "verification"} {
		if strings.Contains(h, w) {
			return 0
		}
	}
	if strings.Contains(h, "children") || strings.Contains(h, "subtask") {
		return 2 // the plan of an epic: its tasks, by title
	}
	for _, w := range []string{"file", "reference", "target area", "parent", "depends", "blocks", "related", "owner", "label", "comment"} {
		if strings.Contains(h, w) {
			return 3
		}
	}
	return 1
}

// metadata reports whether a line is a tracker's bookkeeping.
func metadata(l string) bool {
	for _, p := range []string{"Owner:", "Created:", "Updated:", "Type:", "author:", "state:", "labels:", "assignees:", "projects:", "milestone:", "number:", "url:", "--"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// mostlyPath reports whether a line is a path and little else ("- `lib/x.ex`
// (modify)").
func mostlyPath(l string) bool {
	words := strings.Fields(l)
	paths := 0
	for _, w := range words {
		if strings.Contains(w, "/") {
			paths++
		}
	}
	return paths > 0 && len(words)-paths <= 2
}
