package keep

import (
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// A task's text longer than its room keeps what the task is done against
// (its acceptance criteria) before the rest of its description, and its
// lists of files and links to other tasks last; the lines kept are in
// their order, and the last line says how to read the rest.
func TestTaskTextKeepsTheCriteria(t *testing.T) {
	var b strings.Builder
	b.WriteString("○ x-1 · Close the review   [● P2 · IN_PROGRESS]\nOwner: M · Type: task\n\nDESCRIPTION\nClose every open annotation at once.\n\nOutput files:\n")
	for i := range 30 {
		b.WriteString("- `lib/app/file" + strings.Repeat("x", i) + ".ex` (modify)\n")
	}
	b.WriteString("\nTechnical specs:\n")
	for range 30 {
		b.WriteString("- a long line of specification that says how the close works in detail\n")
	}
	b.WriteString("\nDefinition of Done:\n- Clicking `Close review session` closes all open annotations.\n- Tests cover N>0 and N=0.\n")
	s := archive.State{Tasks: []archive.Task{{ID: "x-1", Subject: "Close the review", Status: "in_progress", Text: b.String(), TextKey: "k0123456789a", Seq: 1}}}
	lines, shown := taskTexts(s, 1500, swap.Retrieval{})
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"### x-1 [in_progress]: Close the review (read in k0123456789a)",
		"DESCRIPTION\nClose every open annotation at once.",
		"Definition of Done:\n- Clicking `Close review session` closes all open annotations.\n- Tests cover N>0 and N=0.",
		"more lines: `ctxkeep recall k0123456789a`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "file") || strings.Contains(got, "Owner:") || len(got) > 1500 || len(shown) != 1 {
		t.Errorf("%d bytes, shown %d:\n%s", len(got), len(shown), got)
	}
}
