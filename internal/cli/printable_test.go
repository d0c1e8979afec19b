package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/dirs"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// escapes is what a coloured output carries: colours, a window title
// (OSC), a hyperlink (OSC 8), a progress line rewritten with a carriage
// return, a C1 CSI written in UTF-8.
func escapes(s string) string {
	return "\x1b]0;title\x07 10%\r\x1b[1;31m" + s + "\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \xc2\x9b32mdone\xc2\x9b0m"
}

// controlIn returns the first string of out (a --json document, or text)
// that holds an escape (ESC, a C1 control, raw or in UTF-8) or another
// control character but newline and tab.
func controlIn(out string) string {
	has := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f })
	}
	var v any
	if json.Unmarshal([]byte(out), &v) != nil {
		if has(out) {
			return out
		}
		return ""
	}
	var walk func(any) string
	walk = func(v any) string {
		switch v := v.(type) {
		case string:
			if has(v) {
				return v
			}
		case map[string]any:
			for _, x := range v {
				if s := walk(x); s != "" {
					return s
				}
			}
		case []any:
			for _, x := range v {
				if s := walk(x); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return walk(v)
}

// What the commands print for a person, or for an agent reading --json,
// holds no control sequence: entries stored before summaries were kept
// clean (a summary, a call, a pin's reason with a tool's escapes), a
// transcript with escapes in a user message, a tool result and a tool's
// name. `ctxkeep show` prints the stored output's exact bytes, escapes
// and all.
func TestListingsHoldNoControlSequence(t *testing.T) {
	s := newSandbox(t)
	s.env["CLAUDE_PROJECT_DIR"] = "/p"
	session := "3c9a1f2e-7b4d-4e8a-9c61-2d5f0a8b7e13"
	d, err := dirs.Resolve(func(k string) string { return s.env[k] })
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), d.IndexDB(), d.Blobs(), store.Existing, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	output := escapes("--- FAIL: TestRefund") + "\n    refund_test.go:42: got 1999 want 2000\n"
	if _, err := st.PutEntry(context.Background(), ctxkeep.Entry{ID: "0123456789ab", SessionID: session, ToolUseID: "toolu_1", Tool: "Bash",
		Input: escapes("go test ./..."), Summary: escapes("1 failure: TestRefund"), Chars: len(output), ViewChars: 100, CreatedAt: time.Now(),
		PinLevel: ctxkeep.PinSoft, PinReason: escapes("keep it"), Replacement: "ab", Verdict: escapes("not applied")}, []byte(output)); err != nil {
		t.Fatal(err)
	}
	st.Close()

	dir := filepath.Join(s.home, ".claude/projects/-p")
	os.MkdirAll(dir, 0o700)
	ids := `"sessionId":"` + session + `","cwd":"/p"`
	tool, _ := json.Marshal("mcp__x__" + escapes("tool"))
	user, _ := json.Marshal(escapes("no, don't round the refunds"))
	result, _ := json.Marshal(output)
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,` + ids + `,"timestamp":"2026-11-21T10:00:00Z","message":{"role":"user","content":` + string(user) + `}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1",` + ids + `,"timestamp":"2026-11-21T10:00:05Z","message":{"id":"m1","model":"claude-opus-4-6","role":"assistant","content":[` +
			`{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./..."}},{"type":"tool_use","id":"toolu_2","name":` + string(tool) + `,"input":{}}],` +
			`"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":20000,"output_tokens":5}}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1",` + ids + `,"timestamp":"2026-11-21T10:00:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + string(result) + `}]}}`,
		`{"type":"user","uuid":"u3","parentUuid":"a1",` + ids + `,"timestamp":"2026-11-21T10:00:07Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":` + string(result) + `}]}}`,
	}
	path := filepath.Join(dir, session+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := s.run(false, "", "archive", path); r.code != 0 {
		t.Fatalf("archive: %+v", r)
	}
	page := filepath.Join(s.home, "context.html")
	for _, args := range [][]string{
		{"list", "--session", session}, {"list", "--session", session, "--json"}, {"list", "--all", "--json"},
		{"pins"}, {"pins", "--json"}, {"show", "0123456789ab", "--info"}, {"prune", "--dry-run", "--json"},
		{"stats"}, {"stats", "--json"},
		{"search", "refund", "--all"}, {"search", "refund", "--all", "--json"},
		{"context", session}, {"context", session, "--json"}, {"context", session, "--html", page},
	} {
		for _, tty := range []bool{false, true} {
			r := s.run(tty, "", args...)
			if r.code != 0 {
				t.Errorf("%v: exit %d, %s", args, r.code, r.stderr)
			}
			if c := controlIn(r.stdout); c != "" {
				t.Errorf("%v (terminal: %v) printed a control sequence: %q", args, tty, c)
			}
		}
	}
	html, _ := os.ReadFile(page)
	if c := controlIn(string(html)); c != "" || !strings.Contains(string(html), "tool link done") { // the name after its carriage return
		t.Errorf("the page holds a control sequence, or not the tool's name as a terminal shows it: %q", c)
	}
	if r := s.run(false, "", "search", "refund", "--all"); !strings.Contains(r.stdout, "refund_test.go:42: got 1999 want 2000") {
		t.Errorf("search found nothing to show:\n%s", r.stdout)
	}
	if r := s.run(false, "", "show", "0123456789ab"); r.stdout != output {
		t.Errorf("show printed %q, not the exact bytes", r.stdout)
	}
}
