package keep

import (
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/text"
)

// A text restored across compaction is a list of sections, each a title
// and items, most important first within a section. Filling is in order of
// the sections' priority, not of their place in the text, so that a tight
// budget drops the worklog before the unresolved errors. Every item line
// is capped, and a section that could not show everything says how many
// items it left out and how to find them.

// section is one part of a restored text.
type section struct {
	title    string
	items    []string // most important first
	priority int      // lower fills first
	share    int      // at most this many bytes (0: no cap beyond the budget)
	more     string   // where the left-out items are, e.g. "`ctxkeep search`"
	note     string   // a last line, after the items, e.g. "3 more the summary already has"
	raw      bool     // the items are lines of a text, written as they are rather than as a list
}

// maxItem caps one item's line.
const maxItem = 400

// render lays sections out in the given order, filling them by priority
// within budget bytes, after head and before tail (both always included).
// A first pass holds each section to its share, so that no section
// crowds out the rest; a second gives the room left to the sections that
// had more to show, again by priority.
func render(head string, sections []section, tail string, budget int) string {
	room := budget - len(head) - len(tail)
	bodies := make([]string, len(sections))
	cut := make([]bool, len(sections))
	order := make([]int, len(sections))
	for i := range order {
		order[i] = i
	}
	sortByPriority(order, sections)
	for _, i := range order {
		bodies[i], cut[i] = fill(sections[i], &room)
	}
	for _, i := range order {
		if s := sections[i]; cut[i] && s.share > 0 {
			room += len(bodies[i])
			s.share = 0
			bodies[i], _ = fill(s, &room)
		}
	}
	var b strings.Builder
	b.WriteString(head)
	for _, body := range bodies {
		b.WriteString(body)
	}
	b.WriteString(tail)
	return b.String()
}

func sortByPriority(order []int, sections []section) {
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && sections[order[j]].priority < sections[order[j-1]].priority; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
}

// fill renders one section into at most *room bytes (and its share),
// and reports whether it left items out.
func fill(s section, room *int) (string, bool) {
	if len(s.items) == 0 {
		return "", false
	}
	limit := *room
	if s.share > 0 {
		limit = min(limit, s.share)
	}
	title := "\n## " + s.title + "\n"
	if len(title)+80 > limit {
		return "", true
	}
	var b strings.Builder
	b.WriteString(title)
	shown := 0
	for _, it := range s.items {
		line := "- " + text.Squash(text.Printable(it), maxItem) + "\n" // as a terminal shows it: no escape reaches the model
		if s.raw {
			line = strings.TrimRight(text.Cut(text.Printable(it), maxItem), " \t") + "\n"
		}
		if b.Len()+len(line)+moreLen > limit {
			break
		}
		b.WriteString(line)
		shown++
	}
	if rest := len(s.items) - shown; rest > 0 {
		note := fmt.Sprintf("- … %d more", rest)
		if s.more != "" {
			note += ": " + s.more
		}
		b.WriteString(note + "\n")
	}
	if s.note != "" && b.Len()+len(s.note)+5 <= limit {
		b.WriteString("- (" + s.note + ")\n")
	}
	*room -= b.Len()
	return b.String(), shown < len(s.items)
}

// moreLen is the room kept for the "… N more" line.
const moreLen = 90
