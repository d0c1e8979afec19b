package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// geminiSession is a Gemini CLI session as ctxkeep's hooks leave it,
// built from real chats of 0.61.0 (internal/gemini/testdata): the first
// prompt runs `echo hello-from-shell`, a second prompt after a resume
// compresses the history, then the model runs ./t.sh (a real call line of
// another chat) and ctxkeep's AfterTool hook denies its output with the
// view, which the chat holds as the call's error. The model's token counts
// are set to 182k, 190k (the peak), then 12k after the compression.
type geminiSession struct {
	id, chat, entry, view, original string
}

const geminiID = "e0a34b33-5ee5-404d-82ad-657999ab4b69"

func newGeminiSession(t *testing.T, dir string, st Store) geminiSession {
	t.Helper()
	ctx := context.Background()
	compressed, err := os.ReadFile("../gemini/testdata/resumed-compressed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	failing, err := os.ReadFile("../gemini/testdata/failing-command.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	g := geminiSession{id: geminiID}
	var orig strings.Builder
	orig.WriteString("--- FAIL: X\n")
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&orig, "    reconcile_test.go:%d: row %d differs\n", i, i)
	}
	orig.WriteString("GEMINI-ORIGINAL-MARK-5512\nFAIL\n")
	g.original = orig.String()
	g.view = "[ctxkeep] ./t.sh: 3,003 lines kept out of the context; exit status 1.\n--- FAIL: X\n… 3,000 lines of reconcile_test.go …\nFAIL\nThe whole output: ctxkeep show gemgemgem001"
	viewJSON, _ := json.Marshal(map[string]string{"error": g.view})

	// ctxkeep's AfterTool warning, as the CLI appends a hook's context
	// to the tool's result.
	const warned = `PGID: 16388\n</untrusted_context>\n\n<hook_context>ctxkeep: the context is at 90% of the point where Gemini CLI compacts it automatically (182,000 of 524,288 tokens; window 1,048,576). To make the rest last: read files with offset/limit.</hook_context>"`
	var b strings.Builder
	for _, line := range strings.SplitAfter(strings.ReplaceAll(string(compressed), `PGID: 16388\n</untrusted_context>"`, warned), "\n") {
		switch {
		case strings.Contains(line, `"id":"e5a83a88`): // the first response, written twice
			line = strings.Replace(line, `"tokens":{"input":1000`, `"tokens":{"input":182000`, 1)
		case strings.Contains(line, `"content":"first done"`):
			line = strings.Replace(line, `"tokens":{"input":1000`, `"tokens":{"input":190000`, 1)
		case strings.Contains(line, `"content":"second done"`):
			line = strings.Replace(line, `"tokens":{"input":1000`, `"tokens":{"input":12000`, 1)
		}
		b.WriteString(line)
	}
	calls := 0
	for _, line := range strings.SplitAfter(string(failing), "\n") {
		const real = `{"output":"\u003cuntrusted_context\u003e\nOutput: --- FAIL: X\nExit Code: 1\nProcess Group PGID: 30170\n\u003c/untrusted_context\u003e"}`
		if !strings.Contains(line, `"toolCalls"`) && !strings.Contains(line, `"functionResponse"`) {
			continue
		}
		raw := strings.Replace(line, strings.ReplaceAll(strings.ReplaceAll(real, `\u003c`, "<"), `\u003e`, ">"), string(viewJSON), 1)
		if raw == line {
			t.Fatalf("the real call line does not hold the output it ran:\n%s", line)
		}
		b.WriteString(strings.Replace(raw, `"tokens":{"input":1000`, `"tokens":{"input":12000`, 1))
		calls++
	}
	if calls != 2 {
		t.Fatalf("%d call lines in the real chat", calls)
	}
	g.chat = filepath.Join(dir, "session-2026-11-28T17-45-e0a34b33.jsonl")
	if err := os.WriteFile(g.chat, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// Stored as the AfterTool hook stores it: the call id is ctxkeep's own
	// (the payload names none), the replacement the view's hash.
	e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: "gemgemgem001", SessionID: g.id, ToolUseID: "gemini_0123456789abcdef0123", Tool: "Bash", Input: "./t.sh",
		Chars: len(g.original), ViewChars: len(g.view), Lines: 3003, Replacement: proof.Sum(g.view)}, []byte(g.original))
	if err != nil {
		t.Fatal(err)
	}
	g.entry = e.ID
	// Archived as the hooks and `ctxkeep archive` archive a chat.
	if _, err := keep.ArchiveAll(ctx, st, keep.Session{ID: g.id, Project: "/p/geminiproj", Transcript: g.chat, Agent: ctxkeep.AgentGemini,
		Read: keep.ReadTurns(gemini.Reader{})}, nil); err != nil {
		t.Fatal(err)
	}
	// The proof of effect finds the view in the chat: applied.
	if n, err := proof.Check(ctx, st.(ctxkeep.Local), g.id, g.chat, ctxkeep.AgentGemini, -1); err != nil || n != 1 {
		t.Fatalf("proof: %d verdicts, %v", n, err)
	}
	return g
}

// geminiLimits are the limits `ctxkeep ui` gives a Gemini CLI session.
func geminiLimits(s *Server) {
	claude := s.o.Limits
	s.o.Limits = func(agent, model string, window, peak int64) watch.Limits {
		if agent == ctxkeep.AgentGemini {
			return watch.Fixed(gemini.Thresholds(model, 0))
		}
		return claude(agent, model, window, peak)
	}
}

// Every page shows a Gemini CLI session with its own figures: named by
// its client (and filtered by it), its compression and the restore block
// given after it, the context per response from the chat's token counts,
// the swapped output as the view the model got (the deny's reason, as the
// chat holds it) with the exact original one click away, and on Now its
// largest outputs since the compression; and the warning ctxkeep gave.
func TestGeminiSessionPages(t *testing.T) {
	dir := t.TempDir()
	s, st := newServer(t, dir)
	geminiLimits(s)
	s.o.StateDir = filepath.Join(dir, "state")
	g := newGeminiSession(t, dir, st)
	// What the BeforeModel hook gave after the compression, as it keeps it.
	secret := "ghp_" + strings.Repeat("G3m1N1x9", 5)
	block, _ := json.Marshal(gemini.Restored{Snapshot: "abc", Block: "ctxkeep restored this session's working state after compression: the decision to reconcile nightly, token " + secret})
	if err := os.MkdirAll(filepath.Join(s.o.StateDir, "keep"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gemini.RestoredFile(filepath.Join(s.o.StateDir, "keep"), g.id), block, 0o600); err != nil {
		t.Fatal(err)
	}

	page := get(s, "/s/"+g.id).Body.String()
	for _, want := range []string{
		`<span class="badge gemini">Gemini CLI</span>`, "gemini-2.5-pro", "1 compression</p>",
		"Compressions and what came back", "<b>#1</b> compression after response 2 · 190k", `<span class="tag ok">restore block</span>`,
		"the decision to reconcile nightly", "[redacted:github-token]",
		`class="chart"`, `<div class="big">12k`, // the context after the last response, of 1M
		"say hello", "go on", // the prompts, from the archive
		`href="/o/` + g.entry + `"`,
		"Warnings ctxkeep gave", "after response 1</span> ctxkeep: the context is at 90% of the point where Gemini CLI compacts it automatically (182,000 of 524,288",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the session page lacks %q", want)
		}
	}
	if strings.Contains(page, secret) {
		t.Errorf("the session page shows the secret")
	}
	if n := strings.Count(page, "</span> ctxkeep: the context is at 90%"); n != 1 {
		t.Errorf("the warning is listed %d times", n)
	}
	// The output is on the step of its call (the archive found it by its
	// view), not among the outputs no step names.
	chip := strings.Index(page, `href="/o/`+g.entry+`"`)
	place := strings.LastIndex(page[:max(chip, 0)], `data-place="`)
	if chip < 0 || place < 0 || !strings.HasPrefix(page[place:], `data-place="2.`) || strings.Contains(page[place:chip], "</li>") ||
		strings.Contains(page, "Other stored outputs") {
		t.Errorf("the output is not on the step of its call, in turn 2")
	}
	if t.Failed() {
		t.Logf("%s", page)
	}

	// The list: the client, the steps, the compression, the peak read from
	// the chat (190k, before the compression), what was kept out.
	list := get(s, "/?client=gemini").Body.String()
	for _, want := range []string{`<span class="badge gemini">Gemini CLI</span>`, `<a href="/s/` + g.id + `"`, "<span>190k</span>",
		`<option value="gemini" selected>Gemini CLI</option>`, "1 applied"} {
		if !strings.Contains(list, want) {
			t.Errorf("the Sessions page lacks %q", want)
		}
	}
	if kept := (len(g.original) - len(g.view)) / 4; !strings.Contains(list, "<b>~"+watch.Short(int64(kept))+"</b>") {
		t.Errorf("the Sessions page does not show ~%s tokens kept out", watch.Short(int64(kept)))
	}
	if other := get(s, "/?client=codex").Body.String(); strings.Contains(other, g.id) {
		t.Errorf("the Codex filter keeps the Gemini session")
	}
	if t.Failed() {
		t.Logf("%s", list)
	}

	// The output: the view the model got, as the chat holds it, and the
	// exact original by its lines.
	view := get(s, "/o/"+g.entry+"/view").Body.String()
	if !strings.Contains(view, `<pre class="viewtext">[ctxkeep] ./t.sh: 3,003 lines kept out of the context; exit status 1.`) {
		t.Errorf("the view:\n%s", view)
	}
	out := get(s, "/o/"+g.entry+"?from=3001").Body.String()
	if !strings.Contains(out, `<pre class="viewtext">[ctxkeep] ./t.sh`) || !strings.Contains(out, `<a class="n" href="#L3002">3002</a>GEMINI-ORIGINAL-MARK-5512`) {
		t.Errorf("the output's page lacks the view or the original:\n%.3000s", out)
	}

	// Now: the gauge, and the largest outputs since the compression (the
	// denied ./t.sh as its view, linked to what ctxkeep stored; not the
	// echo before the compression).
	now := get(s, "/now").Body.String()
	for _, want := range []string{"geminiproj", "a Gemini CLI chat gives the context&#39;s size", "since the last compression", "./t.sh",
		`<a class="tag ok" href="/o/` + g.entry + `">kept out</a>`, `<div class="big">12k`} {
		if !strings.Contains(now, want) {
			t.Errorf("Now lacks %q", want)
		}
	}
	if strings.Contains(now, "hello-from-shell") {
		t.Errorf("Now lists an output from before the compression")
	}
	if t.Failed() {
		t.Logf("%s", now)
	}

	// Search finds the Gemini steps, named by their client: by what the
	// model saw, and by the original ctxkeep kept out.
	res := get(s, "/search?q=hello-from-shell").Body.String()
	if !strings.Contains(res, `<span class="badge gemini">Gemini CLI</span>`) || !strings.Contains(res, `href="/s/`+g.id+`?turn=1#`) {
		t.Errorf("search:\n%.3000s", res)
	}
	if res := get(s, "/search?q=GEMINI-ORIGINAL-MARK-5512").Body.String(); !strings.Contains(res, `href="/s/`+g.id+`?turn=2#`) {
		t.Errorf("search for the original:\n%.3000s", res)
	}
}
