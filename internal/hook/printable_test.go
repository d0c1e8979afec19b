package hook

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/store"
)

// coloured is a failing test run as a terminal gets it: colours, a
// window title (OSC), a hyperlink (OSC 8), a progress line rewritten with
// carriage returns, a C1 CSI written in UTF-8.
func coloured(lines int) string {
	var b strings.Builder
	b.WriteString("\x1b]0;go test\x07")
	for i := range lines {
		b.WriteString("\x1b[32m=== RUN\x1b[0m   TestCase" + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("\x1b[2K\r[   ] 10%\r\x1b[32m[###] done\x1b[0m\n=== RUN   TestRefund\n")
	b.WriteString("    \x1b[1mrefund_test.go:42\x1b[22m: got 1999 want \x1b]8;;file:///p/refund_test.go\x1b\\2000\x1b]8;;\x1b\\\n")
	b.WriteString("\x1b[31m--- FAIL: TestRefund (0.00s)\x1b[0m\n\xc2\x9b31mFAIL\xc2\x9b0m\n")
	return b.String()
}

// controlIn reports the first string of a hook's stdout (a JSON reply, or
// plain text) that holds an escape (ESC, a C1 control, raw or in UTF-8) or
// another control character but newline and tab.
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

// What the hooks write for the model or the user holds no control
// sequence, when a transcript has escapes in a tool result, in the user's
// message and in the model's reply, and a tool printed in colour: the
// view, the preservation notes, the restore block, the supplement.
func TestRepliesHoldNoControlSequence(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CTXKEEP_RESTORE_BUDGET"] = "3000"
	os.MkdirAll(f.sessionDir, 0o700)
	var lines []string
	add := func(v map[string]any) {
		v["uuid"], v["sessionId"], v["timestamp"] = "u"+string(rune('a'+len(lines))), session, "2026-11-21T10:00:00Z"
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "no, \x1b[1mdon't\x1b[0m truncate: run \x1b[4mgo test\x1b[24m"}})
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "tool_use", "id": "b1", "name": "Bash", "input": map[string]any{"command": "go test ./refund/..."}}}}})
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "b1",
		"content": "Exit code 1\n" + coloured(20), "is_error": true}}}})
	for i := range 40 { // more files than the restore block names: the supplement names the rest
		id := "e" + strconv.Itoa(i)
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": "m" + id, "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Edit", "input": map[string]any{
				"file_path": "/p/internal/\x1b[31mdeep\x1b[0m/package" + strconv.Itoa(i) + "/configuration_loader.go", "old_string": "a", "new_string": "b"}}}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
	}
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "m2", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "text", "text": "\x1b[1mI'll use\x1b[0m banker's rounding instead of truncation."}}}})
	if err := os.WriteFile(f.transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	event := func(v map[string]any) []byte {
		v["session_id"], v["transcript_path"], v["cwd"] = session, f.transcript, "/p"
		b, _ := json.Marshal(v)
		return b
	}

	view := f.post("Bash", map[string]any{"command": "go test ./..."}, bash(coloured(3000)))
	if view == nil || !strings.Contains(string(view["updatedToolOutput"]), "refund_test.go:42: got 1999 want 2000") {
		t.Fatalf("no view with the failure's cause: %s; log %s", view["updatedToolOutput"], f.log())
	}
	outs := map[string]string{"the view": string(view["updatedToolOutput"])}
	outs["the preservation notes"] = f.run(event(map[string]any{"hook_event_name": "PreCompact", "trigger": "manual"}), handlers)
	outs["the restore block"] = f.run(event(map[string]any{"hook_event_name": "SessionStart", "source": "compact"}), handlers)
	f.run(event(map[string]any{"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": "<summary>The user asked for \x1b[1mrefunds\x1b[0m.</summary>"}), handlers)
	outs["the supplement"] = f.run(event(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "go on"}), handlers)
	for name, out := range outs {
		if want := "refund_test.go:42: got 1999 want 2000"; name == "the supplement" && !strings.Contains(out, "/p/internal/deep/package") ||
			name != "the supplement" && !strings.Contains(out, want) {
			t.Errorf("%s lacks what it is for: %s\nlog: %s", name, out, f.log())
		}
		if s := controlIn(out); s != "" {
			t.Errorf("%s holds a control sequence: %q", name, s)
		}
	}
}

// Whatever a handler puts in a reply for the model or the user, the reply
// holds no control sequence; a replacement is left to its hash.
func TestReplyEncodesPrintableText(t *testing.T) {
	r := &Reply{SystemMessage: "\x1b[31mred\x1b[0m", Specific: &SpecificOutput{HookEventName: "UserPromptSubmit", AdditionalContext: "a\x1b]0;t\x07b\r\nc"}}
	out, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	if s := controlIn(string(out)); s != "" || !strings.Contains(string(out), `"systemMessage":"red"`) {
		t.Errorf("encoded %s", out)
	}
	if out, _ := (&Reply{Text: "notes \x1b[1mbold\x1b[0m"}).encode(); string(out) != "notes bold" {
		t.Errorf("plain text %q", out)
	}
	if out, _ := (&Reply{Decision: "block", Reason: "\x1b[1mview\x1b[0m"}).encode(); !strings.Contains(string(out), `\u001b[1mview`) {
		t.Errorf("a block's reason, Codex's replacement, changed: %s", out)
	}
}

// What `ctxkeep capture` prints in the agent's Bash in place of a
// coloured output — its view, or its condensed text — holds no control
// sequence; the stored original keeps every byte.
func TestCapturePrintsNoControlSequence(t *testing.T) {
	f := newSwapFixture(t)
	for _, c := range []struct {
		command, output string
	}{
		{"./scripts/e2e.sh --all", coloured(3000)}, // the view
		{"go test ./refund/...", coloured(60)},     // condensed
	} {
		got := f.captureOf(c.command, c.output, 1)
		if s := controlIn(got); s != "" || !strings.Contains(got, "refund_test.go:42: got 1999 want 2000") || got == c.output {
			t.Errorf("capture of %s printed %q", c.command, got)
		}
	}
	for _, e := range f.entries() {
		data, err := f.openStore(t, store.Existing).Open(context.Background(), e.Hash)
		if err != nil || !strings.Contains(string(data), "\x1b]8;;file:///p/refund_test.go\x1b\\2000") {
			t.Errorf("%s: the stored original is not the output as printed (%v)", e.ID, err)
		}
	}
}
