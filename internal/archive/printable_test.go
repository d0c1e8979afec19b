package archive

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// coloured is what a test runner prints to a terminal: colours, a bold
// marker, a progress line rewritten with carriage returns, a window title
// (OSC) and a hyperlink (OSC 8), and a C1 CSI written in UTF-8.
const coloured = "Exit code 1\n\x1b]0;go test\x07=== RUN   TestRefund\n" +
	"\x1b[2K\r[   ] 10%\r[## ] 70%\r\x1b[32m[###] done\x1b[0m\n" +
	"    \x1b[1mrefund_test.go:42\x1b[22m: got 1999 want \x1b]8;;file:///p/refund_test.go\x1b\\2000\x1b]8;;\x1b\\\n" +
	"\x1b[31m--- FAIL: TestRefund (0.00s)\x1b[0m\n\xc2\x9b31mFAIL\xc2\x9b0m\n"

// hasControl reports whether s holds an escape (ESC, or a C1 CSI, OSC or
// DCS, raw or in UTF-8) or another control character but newline and tab.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f })
}

// What the working state keeps of a step — its prompt, summary, commands
// with their failures and causes, decisions, corrections — is kept as a
// terminal shows it: the index holds no escape for the restore block, the
// preservation notes, search or list to pass on. The body, the step as it
// was, keeps every byte.
func TestFromStepKeepsTheStateAsATerminalShowsIt(t *testing.T) {
	turn := turnOf(t,
		prompt("no, \x1b[1mdon't\x1b[0m round: run \x1b[4mgo test\x1b[24m again"),
		use("b1", "Bash", obj{"command": "go test ./refund/... \x1b[31m"}),
		result("b1", coloured, true),
		use("b2", "Bash", obj{"command": "go test ./..."}),
		result("b2", "[ctxkeep] Bash output swapped out…", false),
		answer("\x1b[1mI'll use\x1b[0m banker's rounding instead of truncation, because refunds must add up."),
	)
	lookup := func(id string) (Swapped, bool) {
		if id != "b2" {
			return Swapped{}, false
		}
		return Swapped{ID: "0123456789ab", Text: coloured}, true
	}
	var all []string
	var bodies string
	var chunks []ctxkeep.Chunk
	for i, st := range turn.Steps() {
		c := FromStep("s", "/p", 1, i+1, st, lookup)
		meta, _ := json.Marshal(c.Meta)
		all = append(all, c.Prompt, c.Summary, string(meta))
		bodies += c.Body
		chunks = append(chunks, c)
	}
	state, _ := json.Marshal(Fold("s", chunks, func(string) bool { return true }))
	all = append(all, string(state))
	joined := strings.Join(all, "\n")
	if hasControl(joined) {
		t.Errorf("the state holds control sequences: %q", joined)
	}
	for _, want := range []string{"refund_test.go:42: got 1999 want 2000", "--- FAIL: TestRefund (0.00s)", "don't round", "I'll use banker's rounding"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the state lacks %q: %q", want, joined)
		}
	}
	if !strings.Contains(bodies, "\x1b[31m--- FAIL: TestRefund") {
		t.Errorf("the body is not the step as it was: %q", bodies)
	}
}
