package search

import (
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// A hit says what in it the query named — a file, a command with how it
// went, a failure, a task — and what else the step ran; its lines come
// from the step and the stored output it refers to, each saying where it
// is.
func TestShow(t *testing.T) {
	st := storetest.Local(t, t.TempDir())
	out := strings.Repeat("compiling\n", 30) + "Finished in 0.4 seconds\n14 doctests, 410 tests, 1 failure\n"
	e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: swap.EntryID("s", "toolu_1"), SessionID: "s", ToolUseID: "toolu_1", Tool: "Bash"}, []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	c := ctxkeep.Chunk{SessionID: "s", Body: "assistant: Run the refund tests again.\n→ Bash: mix test test/refund_test.exs\n← error: [[ctxkeep:" + e.ID + "]]\n→ Bash: git status\n",
		Meta: ctxkeep.Meta{FilesRead: []string{"/p/lib/refund.ex"}, Entries: []string{e.ID}, Commands: []ctxkeep.Command{
			{Run: "mix test test/refund_test.exs", Exit: 2, Result: "14 doctests, 410 tests, 1 failure", Errors: []string{"1) test refund rounds (RefundTest)"}},
			{Run: "git status", Exit: 0, Result: "nothing to commit, working tree clean"},
		}, Tasks: []ctxkeep.TaskEvent{{Op: "show", ID: "x-7", Subject: "Fix the refund rounding"}}}}
	s := Show(ctx, st, c, "why do the refund tests fail")
	got := s.Text()
	for _, want := range []string{
		"file /p/lib/refund.ex",
		"command mix test test/refund_test.exs → exit 2: 14 doctests, 410 tests, 1 failure",
		"failure 1) test refund rounds (RefundTest)",
		"task x-7 Fix the refund rounding",
		"ran `git status` → exit 0: nothing to commit, working tree clean",
		"14 doctests, 410 tests, 1 failure\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	var fromOutput bool
	for _, l := range s.Lines {
		if l.From == e.ID && l.N == 32 && l.Text == "14 doctests, 410 tests, 1 failure" {
			fromOutput = true
		}
	}
	if !fromOutput {
		t.Errorf("lines = %+v: want the output's line 32", s.Lines)
	}
	if m := Matched(c, "zanzibar"); len(m) != 0 {
		t.Errorf("Matched(zanzibar) = %+v", m)
	}
}
