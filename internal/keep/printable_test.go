package keep

import (
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/search"
)

// esc holds the sequences a coloured output carries: colours, a window
// title (OSC), a hyperlink (OSC 8), a progress line rewritten with a
// carriage return, and a C1 CSI written in UTF-8.
func esc(s string) string {
	return "\x1b]0;title\x07 10%\r\x1b[1;31m" + s + "\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \xc2\x9b32mdone\xc2\x9b0m"
}

// hasControl reports whether s holds an escape (ESC, or a C1 control, raw
// or in UTF-8) or another control character but newline and tab.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f })
}

// Nothing restored for the model after a compaction, nor given to the
// summariser before it, holds a control sequence — even from an index
// written before the working state was kept clean, from the exact bodies
// the latest reply is read from, from stored outputs' summaries, from git
// and from the user's own instructions.
func TestBlocksHoldNoControlSequence(t *testing.T) {
	item := func(s string) archive.Item { return archive.Item{Text: esc(s), Turn: 1, Key: "k0123456789a"} }
	state := archive.State{
		Session: "s", Turns: 2,
		Tasks:        []archive.Task{{ID: "1", Subject: esc("Fix the refund rounding"), Status: "in_progress", Key: "k0123456789a"}},
		Files:        []archive.File{{Path: "/p/refund.go", Edits: 1, Turn: 1, Key: "k0123456789a"}},
		Commands:     []archive.Run{{Command: esc("go test ./..."), Runs: 1, Exit: 1, Errors: []string{esc("refund_test.go:42: got 1999 want 2000")}, Turn: 1, Key: "k0123456789a", Check: true, Failures: 1}},
		Decisions:    []archive.Item{item("I'll use banker's rounding")},
		Corrections:  []archive.Item{item("no, don't truncate")},
		Errors:       []archive.Item{item("`go test ./...` failed (exit 1): refund_test.go:42: got 1999 want 2000")},
		UserMessages: []archive.Item{item("fix the refunds")},
	}
	last := []ctxkeep.Chunk{{Key: "k0123456789b", Turn: 2, Step: 1, Kind: ctxkeep.KindStep, Summary: esc("ran the tests"),
		Body: "user: fix the refunds\nassistant: " + esc("The rounding is fixed; next, the currency tests.") + "\n"}}
	inventory := []ctxkeep.Entry{{ID: "0123456789ab", Tool: "Bash", Input: esc("go test ./..."), Summary: esc("1 failure: TestRefund")}}
	relevant := []search.Result{{ChunkHit: ctxkeep.ChunkHit{Chunk: ctxkeep.Chunk{Key: "k0123456789c", SessionID: "s", Turn: 1, Step: 2, Summary: esc("an earlier run")}}}}
	cold := []ctxkeep.ColdTask{{Subject: esc("Write the limiter"), Summary: esc("done in turn 1")}}
	blocks := map[string]string{
		"restore": RestoreBlock(RestoreInput{State: state, Last: last, Cold: cold, Inventory: inventory, Relevant: relevant, Budget: 9500, Session: "s"}),
		"restore after the summary": RestoreBlock(RestoreInput{State: state, Last: last, Cold: cold, Inventory: inventory, Relevant: relevant, Budget: 9500,
			Session: "s", Summary: "The user asked to fix refunds."}),
		"preservation": PreservationBlock(PreservationInput{State: state, Cold: cold, GitDiffStat: esc(" refund.go | 2 +-"),
			Instructions: esc("Keep the refund figures."), Budget: 9000}),
		"supplement": Supplement(SupplementInput{State: state, Summary: "The user asked to fix refunds.", Session: "s", Budget: 3000}),
	}
	for name, b := range blocks {
		if hasControl(b) {
			t.Errorf("the %s block holds a control sequence: %q", name, b)
		}
		if !strings.Contains(b, "refund_test.go:42: got 1999 want 2000") {
			t.Errorf("the %s block lacks the failure's cause:\n%s", name, b)
		}
	}
	if !strings.Contains(blocks["restore"], "The rounding is fixed; next, the currency tests. link done") {
		t.Errorf("the latest reply is not shown as a terminal shows it:\n%s", blocks["restore"])
	}
}
