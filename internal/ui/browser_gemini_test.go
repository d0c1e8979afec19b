package ui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// TestBrowserGemini drives chromium through a Gemini CLI session that the
// real hooks of the ctxkeep binary saw: AfterTool stores a large output of
// ./t.sh and answers with a deny whose reason is the view, the chat (a
// real one of 0.61.0) holds the view as the call's error, as the CLI
// writes it, and AfterAgent archives the turn and checks the proof. The
// pages name the client, show the view the model got and, one click away,
// the exact original.
func TestBrowserGemini(t *testing.T) {
	chrome := chromium(t)
	const sid = "1cd246ab-7034-4ba9-8f7a-76f689c2fcf2"
	real, err := os.ReadFile("../gemini/testdata/failing-command.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	w := &world{t: t, bin: testbin.Path(t), project: filepath.Join(dir, "ledger")}
	chat := filepath.Join(home, ".gemini", "tmp", "ledger", "chats", "session-2026-11-28T17-59-1cd246ab.jsonl")
	for _, d := range []string{w.project, filepath.Dir(chat)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{"HOME=" + home, "CTXKEEP_HOME=" + filepath.Join(dir, "ctxkeep"), "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	if err := os.WriteFile(chat, real, 0o600); err != nil {
		t.Fatal(err)
	}
	w.run("", "install", "--plugin", t.TempDir()) // prepares the store (commands that only read do not)

	var out strings.Builder
	out.WriteString("--- FAIL: X\n")
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&out, "    ledger_test.go:%d: row %d does not reconcile\n", i, i)
	}
	out.WriteString("GEMINI-BROWSER-MARK-8841\nFAIL\n")
	ev, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": chat, "cwd": w.project, "hook_event_name": "AfterTool",
		"timestamp": "2026-11-28T17:59:26.439Z", "tool_name": "run_shell_command",
		"tool_input":    map[string]string{"command": "./t.sh", "description": "scripted step call_1"},
		"tool_response": map[string]string{"llmContent": "<untrusted_context>\nOutput: " + out.String() + "Exit Code: 1\nProcess Group PGID: 30170\n</untrusted_context>", "returnDisplay": out.String()}})
	var reply struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(w.run(string(ev), "hook", "--agent", "gemini"), &reply); err != nil || reply.Decision != "deny" || !strings.HasPrefix(reply.Reason, "[ctxkeep]") {
		t.Fatalf("AfterTool swapped nothing out: %+v %v", reply, err)
	}
	// The chat as the CLI writes it after the deny: the reason in place of
	// the output, as the call's error.
	denied, _ := json.Marshal(map[string]string{"error": reply.Reason})
	const output = `{"output":"<untrusted_context>\nOutput: --- FAIL: X\nExit Code: 1\nProcess Group PGID: 30170\n</untrusted_context>"}`
	if !strings.Contains(string(real), output) {
		t.Fatal("the real chat does not hold the command's output")
	}
	if err := os.WriteFile(chat, []byte(strings.ReplaceAll(string(real), output, string(denied))), 0o600); err != nil {
		t.Fatal(err)
	}
	end, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": chat, "cwd": w.project, "hook_event_name": "AfterAgent",
		"timestamp": "2026-11-28T17:59:26.900Z", "prompt": "go", "prompt_response": "done", "stop_hook_active": false})
	w.run(string(end), "hook", "--agent", "gemini")
	var list struct {
		Entries []struct {
			ID      string `json:"id"`
			Applied *bool  `json:"applied"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(w.run("", "list", "--all", "--json"), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Entries) != 1 || list.Entries[0].Applied == nil || !*list.Entries[0].Applied {
		t.Fatalf("the stored output, its proof: %+v", list.Entries)
	}
	id := list.Entries[0].ID

	raw := w.serve()
	base := strings.TrimSuffix(raw[:strings.Index(raw, "/?token=")], "/")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}

	// The list, filtered to Gemini CLI.
	if err := chromedp.Do(ctx, chromedp.Navigate(raw), chromedp.WaitVisible("table.sessions"),
		chromedp.Navigate(base+"/?client=gemini"), chromedp.WaitVisible("table.sessions")); err != nil {
		t.Fatal(err)
	}
	if s := text("table.sessions"); !strings.Contains(s, "Gemini CLI") || !strings.Contains(s, "applied") {
		t.Errorf("the list lacks the Gemini session or what was kept out:\n%s", s)
	}
	// The session: its chart, and the output as the model got it.
	row := `details.output[data-id="` + id + `"]`
	if err := chromedp.Do(ctx, chromedp.Click(`a[href="/s/`+sid+`"]`), chromedp.WaitVisible(".head")); err != nil {
		t.Fatal(err)
	}
	if s := text(".head"); !strings.Contains(s, "Gemini CLI") || !strings.Contains(s, "gemini-2.5-pro") {
		t.Fatalf("the session's head (the chart would never come):\n%s", s)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible("svg.chart"),
		chromedp.ScrollIntoView(row), chromedp.Click(row+" > summary"), chromedp.WaitVisible(row+" pre.viewtext")); err != nil {
		t.Fatal(err)
	}
	if s := text(row + " pre.viewtext"); !strings.HasPrefix(s, "[ctxkeep]") || strings.Contains(s, "row 750 does") {
		t.Errorf("what the model saw is not ctxkeep's view: %.300s", s)
	}
	// The exact original, one click away.
	if err := chromedp.Do(ctx, chromedp.Click(row+" a.primary"), chromedp.WaitVisible("pre.lines")); err != nil {
		t.Fatal(err)
	}
	if s := text("pre.lines"); !strings.Contains(s, "GEMINI-BROWSER-MARK-8841") || !strings.Contains(s, "ledger_test.go:750: row 750 does not reconcile") {
		t.Errorf("the original is not whole: %.300s", s)
	}
}
