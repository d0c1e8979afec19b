package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// prompt runs a UserPromptSubmit and decodes the reply.
func (f *swapFixture) prompt(text string) *Reply {
	f.t.Helper()
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p",
		"hook_event_name": "UserPromptSubmit", "prompt": text}
	payload, _ := json.Marshal(ev)
	out := f.run(payload, handlers)
	if out == "" {
		return nil
	}
	var r Reply
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		f.t.Fatalf("reply %q: %v", out, err)
	}
	return &r
}

// postOutput swaps out a large Bash output under tool_use id id.
func (f *swapFixture) postOutput(id, text string) {
	f.t.Helper()
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "make " + id}, "tool_response": bash(text), "tool_use_id": id}
	payload, _ := json.Marshal(ev)
	if out := f.run(payload, handlers); !strings.Contains(out, "updatedToolOutput") {
		f.t.Fatalf("%s was not swapped: %q; log: %s", id, out, f.log())
	}
}

func (f *swapFixture) pins() map[string]string {
	levels := map[string]string{}
	for _, e := range f.entries() {
		levels[e.ToolUseID] = e.PinLevel.String() + ":" + e.PinReason
	}
	return levels
}

func bigOutput(tag string) string { return strings.Repeat(tag+" ... ok\n", 2000) }

func TestPinLastPinsTheLatestOutput(t *testing.T) {
	f := newSwapFixture(t)
	r := f.prompt("ccm:pin last")
	if r == nil || r.Decision != "block" || !strings.Contains(r.Reason, "no stored output yet") {
		t.Fatalf("pin last with nothing stored: %+v", r)
	}
	f.postOutput("toolu_1", bigOutput("one"))
	f.postOutput("toolu_2", bigOutput("two"))
	r = f.prompt(`ccm:pin last level=hard reason="the release build"`)
	if r == nil || r.Decision != "block" || !strings.Contains(r.Reason, "pinned ") || !strings.Contains(r.Reason, "hard") {
		t.Fatalf("reply = %+v", r)
	}
	if got := f.pins(); got["toolu_2"] != "hard:the release build" || got["toolu_1"] != "none:" {
		t.Fatalf("pins = %v", got)
	}
}

// ccm:pin next pins the next stored output only; a range pins every
// output stored until it ends. A prompt that holds more than directives
// goes on to the model, with a note that the directives were handled.
func TestPinNextAndRange(t *testing.T) {
	f := newSwapFixture(t)
	r := f.prompt("run the build\nccm:pin next hard")
	if r == nil || r.Decision != "" || !strings.Contains(r.SystemMessage, "next stored output") ||
		r.Specific == nil || !strings.Contains(r.Specific.AdditionalContext, "already handled") {
		t.Fatalf("reply = %+v", r)
	}
	f.postOutput("toolu_1", bigOutput("one"))
	f.postOutput("toolu_2", bigOutput("two"))
	f.prompt("/pin-start reason=refactor")
	f.postOutput("toolu_3", bigOutput("three"))
	f.postOutput("toolu_4", bigOutput("four"))
	r = f.prompt("/pin-end")
	if r == nil || !strings.Contains(r.Reason, "2 output(s)") {
		t.Fatalf("pin end: %+v", r)
	}
	f.postOutput("toolu_5", bigOutput("five"))
	want := map[string]string{"toolu_1": "hard:", "toolu_2": "none:", "toolu_3": "soft:refactor", "toolu_4": "soft:refactor", "toolu_5": "none:"}
	if got := f.pins(); len(got) != len(want) {
		t.Fatalf("pins = %v", got)
	} else {
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: %q, want %q", id, got[id], w)
			}
		}
	}
	if r := f.prompt("ccm:pin end"); r == nil || !strings.Contains(r.Reason, "no pin range was open") {
		t.Fatalf("second end: %+v", r)
	}
}

// A malformed directive pins nothing, not even the good directives next to
// it, and says why; the rest of the prompt still reaches the model.
func TestMalformedDirectivePinsNothing(t *testing.T) {
	f := newSwapFixture(t)
	f.postOutput("toolu_1", bigOutput("one"))
	r := f.prompt("ccm:pin last level=hard\nccm:pin lats")
	if r == nil || r.Decision != "block" || !strings.Contains(r.Reason, `unknown target "lats"`) || !strings.Contains(r.Reason, "nothing was pinned") {
		t.Fatalf("reply = %+v", r)
	}
	r = f.prompt("fix the tests\nccm:pin next level=medium")
	if r == nil || r.Decision != "" || !strings.Contains(r.SystemMessage, `bad pin level "medium"`) || r.Specific != nil {
		t.Fatalf("reply = %+v", r)
	}
	f.postOutput("toolu_2", bigOutput("two"))
	if got := f.pins(); got["toolu_1"] != "none:" || got["toolu_2"] != "none:" {
		t.Fatalf("pinned by accident: %v", got)
	}
	if r := f.prompt("what does ccm:pin do?"); r != nil {
		t.Fatalf("a mention in a sentence got %+v", r)
	}
}

func TestPinByID(t *testing.T) {
	f := newSwapFixture(t)
	f.postOutput("toolu_1", bigOutput("one"))
	id := f.entries()[0].ID
	if r := f.prompt("ccm:pin " + id[:6] + " hard"); r == nil || !strings.Contains(r.Reason, "pinned "+id) {
		t.Fatalf("reply = %+v", r)
	}
	if r := f.prompt("ccm:pin ffff"); r == nil || !strings.Contains(r.Reason, "no such entry") {
		t.Fatalf("reply = %+v", r)
	}
}

// endSession runs ctxkeep's SessionEnd clean-up (without the archive's
// policy, which needs a transcript) for reason.
func (f *swapFixture) endSession(reason string) {
	f.t.Helper()
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "SessionEnd", "reason": reason}
	payload, _ := json.Marshal(ev)
	f.run(payload, map[string]handler{"SessionEnd": all(indexJournal, tendAtSessionEnd)})
	if log := f.log(); log != "" {
		f.t.Fatalf("log: %s", log)
	}
}

// /clear, /exit and logout take the session's unpinned outputs; other ends
// take only what expired.
func TestSessionEndCleansUp(t *testing.T) {
	for _, c := range []struct {
		reason string
		left   int
	}{{"clear", 1}, {"prompt_input_exit", 1}, {"logout", 1}, {"other", 3}, {"resume", 3}} {
		f := newSwapFixture(t)
		f.postOutput("toolu_1", bigOutput("one"))
		f.prompt("ccm:pin last")
		f.postOutput("toolu_2", bigOutput("two"))
		f.postOutput("toolu_3", bigOutput("three"))
		f.endSession(c.reason)
		if es := f.entries(); len(es) != c.left || es[0].ToolUseID != "toolu_1" {
			t.Errorf("after SessionEnd %s: %d entries left, want %d", c.reason, len(es), c.left)
		}
	}
}

// An expired output goes at any session end; a store over
// limits.total_bytes is brought under it there too.
func TestSessionEndPrunesExpiredAndOverSize(t *testing.T) {
	f := newSwapFixture(t)
	st, err := store.Open(context.Background(), f.dirs().IndexDB(), f.dirs().Blobs(), store.Existing, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	old := ctxkeep.Entry{ID: "0123456789ab", SessionID: "old-session", Tool: "Bash", CreatedAt: time.Now().Add(-30 * 24 * time.Hour)}
	if old, err = st.PutEntry(context.Background(), old, []byte("an old output")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	f.postOutput("toolu_1", bigOutput("one"))
	f.endSession("other")
	es := f.entries()
	if len(es) != 1 || es[0].ToolUseID != "toolu_1" {
		t.Fatalf("entries = %+v", es)
	}
	if _, err := f.openStore(t, store.Existing).Open(context.Background(), old.Hash); err == nil {
		t.Fatal("the expired output's blob is still there")
	}

	f.vars["CTXKEEP_LIMITS_TOTAL_BYTES"] = "1MB"
	for i := range 12 {
		f.postOutput("toolu_big"+string(rune('a'+i)), randomText(i, 200_000))
	}
	f.endSession("other")
	sizes, total, _ := storeSizes(t, f)
	if total > 900_000 || len(sizes) == 0 {
		t.Fatalf("store is %d bytes after SessionEnd (limit 1MB, target 90%%)", total)
	}
}

// randomText is n bytes of text that compresses poorly, different for each
// seed.
func randomText(seed, n int) string {
	var b strings.Builder
	x := uint64(seed)*0x9E3779B97F4A7C15 + 1
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		fmt.Fprintf(&b, "%016x\n", x)
	}
	return b.String()
}

func storeSizes(t *testing.T, f *swapFixture) (map[ctxkeep.Hash]int64, int64, error) {
	return f.openStore(t, store.Existing).BlobSizes(context.Background())
}

// A repository's .ctxkeep.toml must not delete another project's outputs
// (the reliability issue's first finding): a project file setting a tiny
// store limit and retention is ignored, so the other project's outputs,
// its purge stubs among them, all stay retrievable after this project's
// turns and session end. And when the user's own config sets a small
// limit, the automatic prune takes unpinned outputs only: soft pins (purge's
// stubs) need an explicit `ctxkeep prune --pinned`.
func TestAProjectFileCannotPruneOtherProjects(t *testing.T) {
	f := newSwapFixture(t)
	os.WriteFile(filepath.Join(f.vars["CLAUDE_PROJECT_DIR"], ".ctxkeep.toml"),
		[]byte("[limits]\ntotal_bytes = \"1MB\"\nentries_per_session = 1\n[retention]\ndefault = \"1m\"\nretrieved = \"1m\"\nnever_retrieved = \"1m\"\n"), 0o600)
	st := f.openStore(t, store.Existing)
	old := time.Now().Add(-10 * time.Minute) // expired under the project file's retention, not under the user's
	var other []ctxkeep.Entry
	for i := range 22 {
		e := ctxkeep.Entry{ID: fmt.Sprintf("b%011x", i), SessionID: "other-project-session", Tool: "Bash", CreatedAt: old, Cwd: "/other"}
		if i%2 == 0 {
			e.PinLevel, e.PinReason = ctxkeep.PinSoft, "purge: kept out of the transcript"
		}
		e, err := st.PutEntry(context.Background(), e, []byte(randomText(100+i, 60_000)))
		if err != nil {
			t.Fatal(err)
		}
		other = append(other, e)
	}
	st.Close()
	for i := range 12 {
		f.postOutput(fmt.Sprintf("toolu_big%02d", i), randomText(i, 200_000)) // this project passes 1MB
	}
	stop, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "Stop"})
	f.run(stop, handlers)
	f.endSession("other")
	check := f.openStore(t, store.Existing)
	for _, e := range other {
		if data, err := check.Open(context.Background(), e.Hash); err != nil || len(data) == 0 {
			t.Fatalf("another project's output %s (pin %s) went: %v", e.ID, e.PinLevel, err)
		}
	}
	var cfgSeen bool
	for _, v := range mustValues(t, f) {
		cfgSeen = cfgSeen || v.Key == "limits.total_bytes" && v.Source.Kind == "ignored"
	}
	if !cfgSeen {
		t.Error("the project file's store-wide key is not reported as ignored")
	}

	// The user's own small limit: unpinned outputs go, soft pins stay.
	os.WriteFile(filepath.Join(f.home, "config.toml"), []byte("[limits]\ntotal_bytes = \"1MB\"\n"), 0o600)
	f.endSession("other")
	left, _ := f.openStore(t, store.Existing).Entries(context.Background(), ctxkeep.EntryFilter{Session: "other-project-session"})
	soft := 0
	for _, e := range left {
		if e.PinLevel != ctxkeep.PinSoft {
			continue
		}
		soft++
		if _, err := f.openStore(t, store.Existing).Open(context.Background(), e.Hash); err != nil {
			t.Fatalf("soft pin %s lost its bytes: %v", e.ID, err)
		}
	}
	if soft != 11 {
		t.Fatalf("%d of 11 soft-pinned outputs left after the automatic prune; the automatic prune must not take pins", soft)
	}
	log, _ := os.ReadFile(f.dirs().Removals())
	if !strings.Contains(string(log), `reason="over the size limit"`) {
		t.Fatalf("removals are not logged with their reason:\n%s", log)
	}
}

func mustValues(t *testing.T, f *swapFixture) []config.Value {
	t.Helper()
	a, err := app.New(f.env())
	if err != nil {
		t.Fatal(err)
	}
	_, vals, err := a.ConfigValues()
	if err != nil {
		t.Fatal(err)
	}
	return vals
}

// A session's end removes what interrupted writes of its readable copies
// left behind in its tool-results folder, once old enough.
func TestSessionEndRemovesUnfinishedCopies(t *testing.T) {
	f := newSwapFixture(t)
	dir := filepath.Join(f.sessionDir, "tool-results")
	os.MkdirAll(dir, 0o700)
	left := filepath.Join(dir, ".ctxkeep-0123456789ab.txt.tmp-4711")
	theirs := filepath.Join(dir, "toolu_01.txt")
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{left, theirs} {
		os.WriteFile(p, []byte("partial"), 0o600)
		os.Chtimes(p, old, old)
	}
	f.endSession("other")
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the unfinished copy is still there: %v", err)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("the client's own file went: %v", err)
	}
}
