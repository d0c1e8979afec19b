package keep

import (
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/archive"
)

// summaryText is the client's compaction summary, as text to look details up in:
// whitespace collapsed, so that a line the summary rewrapped still counts.
type summaryText struct {
	text    string
	project string // paths also count when the summary gives them relative to it
}

func newSummaryText(summary, project string) summaryText {
	return summaryText{text: strings.Join(strings.Fields(summary), " "), project: project}
}

// has reports whether the summary holds detail exactly (a long one by its
// first 80 characters: summaries shorten long commands).
func (k summaryText) has(detail string) bool {
	d := strings.Join(strings.Fields(detail), " ")
	if d == "" {
		return true
	}
	if len(d) > 80 {
		d = d[:80]
	}
	return strings.Contains(k.text, d)
}

// hasPath reports whether the summary names a file by its path, absolute
// or in the project.
func (k summaryText) hasPath(p string) bool {
	if rel, ok := strings.CutPrefix(p, k.project+"/"); ok && k.project != "" && k.has(rel) {
		return true
	}
	return k.has(p)
}

// The details a summary tends to lose, each filtered to those it lacks;
// had counts those it summaryText.

func (k summaryText) lackingFiles(fs []archive.File) (out []archive.File, had int) {
	for _, f := range fs {
		if k.hasPath(f.Path) {
			had++
		} else {
			out = append(out, f)
		}
	}
	return out, had
}

// lackingRuns are the runs the summary does not name (by what they run,
// or a command line of theirs), or whose latest result line it lacks.
func (k summaryText) lackingRuns(rs []archive.Run) (out []archive.Run, had int) {
	for _, r := range rs {
		if (k.has(r.Group) || k.has(r.Command)) && (r.Result == "" || k.has(r.Result)) {
			had++
		} else {
			out = append(out, r)
		}
	}
	return out, had
}

// lackingLines are the lines of a text (a task's, as the block writes it)
// the summary does not hold; a heading stays with the lines under it.
func (k summaryText) lackingLines(lines []string) (out []string, had int) {
	head := -1 // the task heading of the lines that follow, in out
	kept := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "### "):
			if head >= 0 && !kept {
				out = out[:head] // a heading with nothing left under it
			}
			head, kept = len(out), false
			out = append(out, l)
		case strings.HasPrefix(l, "… "):
			out = append(out, l)
		case k.has(strings.TrimLeft(l, " -*")):
			had++
		default:
			out = append(out, l)
			kept = true
		}
	}
	if head >= 0 && !kept {
		out = out[:head]
	}
	return out, had
}

// lackingFailures are the unresolved failures whose causes the summary
// does not quote, each as "`command` failed (exit N): marker / cause".
func (k summaryText) lackingFailures(s archive.State) (out []string, had int) {
	for _, r := range s.Unresolved() {
		whole := len(r.Errors) > 0
		for _, e := range r.Errors {
			whole = whole && k.has(e)
		}
		if whole {
			had++
			continue
		}
		text := fmt.Sprintf("`%s` failed (exit %s)", r.Command, exitText(r.Exit))
		if len(r.Errors) > 0 {
			text += ": " + strings.Join(r.Errors, " / ")
		}
		out = append(out, fmt.Sprintf("%s [turn %d, %s]", text, r.Turn, r.Key))
	}
	return out, had
}

func (k summaryText) lackingItems(list []archive.Item) (out []archive.Item, had int) {
	for _, it := range list {
		if k.has(it.Text) {
			had++
		} else {
			out = append(out, it)
		}
	}
	return out, had
}

func (k summaryText) lackingTasks(ts []archive.Task) (out []archive.Task, had int) {
	for _, t := range ts {
		if k.has(t.Subject) {
			had++
		} else {
			out = append(out, t)
		}
	}
	return out, had
}

// alsoKept is the note of a section whose other items the summary has.
func alsoKept(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d more the summary already has", n)
}
