package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// codexFixture is a fixture with a migrated index and a Codex home whose
// session has a rollout, as `codex exec` writes it.
type codexFixture struct {
	*fixture
	codexHome string
	rollout   string
	lines     []string
}

func newCodexFixture(t *testing.T) *codexFixture {
	f := newFixture(t)
	delete(f.vars, "AI_AGENT")
	st, err := store.Open(context.Background(), f.dirs().IndexDB(), f.dirs().Blobs(), store.Migrate, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	home := filepath.Join(t.TempDir(), ".codex")
	dir := filepath.Join(home, "sessions", "2026", "11", "26")
	os.MkdirAll(dir, 0o700)
	f.vars["CODEX_HOME"] = home
	c := &codexFixture{fixture: f, codexHome: home, rollout: filepath.Join(dir, "rollout-2026-11-26T10-00-00-"+session+".jsonl")}
	c.add("session_meta", map[string]any{"id": session, "cwd": "/p", "cli_version": "0.169.0"})
	c.add("event_msg", map[string]any{"type": "task_started", "model_context_window": 258400})
	c.add("turn_context", map[string]any{"cwd": "/p", "model": "gpt-5.5", "approval_policy": "never", "sandbox_policy": map[string]any{"type": "danger-full-access"}})
	return c
}

// add appends a line to the rollout.
func (c *codexFixture) add(kind string, payload any) {
	data, _ := json.Marshal(map[string]any{"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "type": kind, "payload": payload})
	c.lines = append(c.lines, string(data))
	os.WriteFile(c.rollout, []byte(strings.Join(c.lines, "\n")+"\n"), 0o600)
}

// call runs one Codex hook event (fields added to the common ones) and
// decodes the reply (nil when stdout is empty).
func (c *codexFixture) call(event string, fields map[string]any) map[string]any {
	c.t.Helper()
	ev := map[string]any{"session_id": session, "turn_id": "t1", "transcript_path": c.rollout, "cwd": "/p", "hook_event_name": event, "model": "gpt-5.5"}
	for k, v := range fields {
		ev[k] = v
	}
	payload, _ := json.Marshal(ev)
	var out bytes.Buffer
	runAs(time.Now(), ctxkeep.AgentCodex, c.env(), bytes.NewReader(payload), &out, codexHandlers)
	if out.Len() == 0 {
		return nil
	}
	var reply map[string]any
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
		c.t.Fatalf("reply %q: %v", out.String(), err)
	}
	return reply
}

// post runs a shell PostToolUse whose command exited with code, as the
// rollout records it before the hook runs.
func (c *codexFixture) post(callID, command, output string, code int) map[string]any {
	c.add("response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": callID, "arguments": `{"cmd":` + quoteJSON(command) + `}`})
	c.add("event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "CommandExecution", "id": callID, "aggregated_output": output, "exit_code": code}})
	return c.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command}, "tool_response": output, "tool_use_id": callID})
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

func (c *codexFixture) entries() []ctxkeep.Entry {
	es, _ := c.openStore(c.t, store.Existing).Entries(context.Background(), ctxkeep.EntryFilter{Session: session})
	return es
}

// A large shell output is replaced, in the reason of a "block" decision
// (the only replacement Codex applies), by a view that says the exit
// status the rollout recorded and how to get the output back; the exact
// output is stored; there is no readable copy (Codex has no folder for
// it); and the view stays under Codex's cut for hook text whatever the
// configured budget.
func TestCodexPostToolUseReplacesTheOutput(t *testing.T) {
	f := newCodexFixture(t)
	f.vars["HOME"] = t.TempDir()
	// ctxkeep's MCP server registered with Claude Code for this HOME: not
	// a tool Codex has, so the view still names the command line.
	claudecode.NoteMCPRegistered(f.dirs().MCPRegistrations(), filepath.Join(f.vars["HOME"], ".claude.json"), true)
	f.vars["CTXKEEP_VIEW_BUDGET"] = "50000"
	f.vars["CTXKEEP_SWAP_CONDENSE"] = "false" // the view is what this test is about (a go test log would be condensed)
	output := strings.Repeat("=== RUN   TestCase\n", 3000) + "--- FAIL: TestRefund (0.00s)\n    refund_test.go:42: got 1999 want 2000\nFAIL\n"
	reply := f.post("call_1", "go test ./...", output, 1)
	if reply == nil {
		t.Fatalf("no reply; log: %s", f.log())
	}
	view, _ := reply["reason"].(string)
	if reply["decision"] != "block" || !strings.Contains(view, "[ctxkeep] Bash output swapped out") || !strings.Contains(view, "exit status 1") ||
		!strings.Contains(view, "--- FAIL: TestRefund") || !strings.Contains(view, "ctxkeep show ") || strings.Contains(view, "Read ") || strings.Contains(view, "mcp__") {
		t.Fatalf("reply %v", reply)
	}
	if len(view) > codex.MaxHookText {
		t.Errorf("view of %d bytes, over Codex's cut", len(view))
	}
	es := f.entries()
	if len(es) != 1 || es[0].ExitCode == nil || *es[0].ExitCode != 1 || es[0].CopyPath != "" || es[0].ToolUseID != "call_1" {
		t.Fatalf("entries %+v", es)
	}
	data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash)
	if err != nil || string(data) != output {
		t.Errorf("stored %d bytes (%v), want the %d of the output", len(data), err, len(output))
	}
}

// At Stop, each replacement is checked in the rollout, where the function
// call's output holds what the model got: applied when it is the view,
// not applied (naming the tool and Codex's one replacement) when Codex
// kept the original.
func TestCodexStopProvesReplacements(t *testing.T) {
	f := newCodexFixture(t)
	f.vars["CTXKEEP_SWAP_CONDENSE"] = "false"
	big := strings.Repeat("=== RUN   TestCase\n", 3000)
	applied := f.post("call_1", "go test ./a", big, 0)
	kept := f.post("call_2", "go test ./b", big+"b", 0)
	if applied == nil || kept == nil {
		t.Fatalf("no reply; log: %s", f.log())
	}
	f.add("response_item", map[string]any{"type": "function_call_output", "call_id": "call_1", "output": applied["reason"]})
	f.add("response_item", map[string]any{"type": "function_call_output", "call_id": "call_2", "output": "Chunk ID: 9\nProcess exited with code 0\nOutput:\n" + big + "b"})
	f.call("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": "done"})
	got := map[string]ctxkeep.Entry{}
	for _, e := range f.entries() {
		got[e.ToolUseID] = e
	}
	if e := got["call_1"]; e.Applied == nil || !*e.Applied {
		t.Errorf("call_1: applied %v, verdict %q; log: %s", e.Applied, e.Verdict, f.log())
	}
	if e := got["call_2"]; e.Applied == nil || *e.Applied || !strings.Contains(e.Verdict, "Bash replacement of shape PostToolUse decision block, reason not applied") {
		t.Errorf("call_2: applied %v, verdict %q", e.Applied, e.Verdict)
	}
}

// Small outputs, images and a client's other output shapes pass through.
func TestCodexPostToolUsePassesThrough(t *testing.T) {
	f := newCodexFixture(t)
	if r := f.post("call_1", "ls", "a\nb\n", 0); r != nil {
		t.Errorf("small output replaced: %v", r)
	}
	image := map[string]any{"content": []any{map[string]any{"type": "image", "data": strings.Repeat("A", 50000)}}}
	if r := f.call("PostToolUse", map[string]any{"tool_name": "mcp__x__shot", "tool_input": map[string]any{}, "tool_response": image, "tool_use_id": "call_2"}); r != nil {
		t.Errorf("image replaced: %v", r)
	}
	if es := f.entries(); len(es) != 0 {
		t.Errorf("stored %+v", es)
	}
}

// PreToolUse runs a test command through the wrapper only in a session
// without a sandbox: a sandbox would refuse the wrapper's spool outside
// the workspace, and the command would not run at all.
func TestCodexWrapsOnlyWithoutASandbox(t *testing.T) {
	f := newCodexFixture(t)
	pre := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "tool_use_id": "call_9"}
	reply := f.call("PreToolUse", pre)
	specific, _ := reply["hookSpecificOutput"].(map[string]any)
	input, _ := specific["updatedInput"].(map[string]any)
	if specific["permissionDecision"] != "allow" || !strings.Contains(input["command"].(string), " capture ") {
		t.Fatalf("reply %v; log %s", reply, f.log())
	}
	var spec captureSpec
	data, _ := os.ReadFile(filepath.Join(f.dirs().Spool(), "call_9.json"))
	if json.Unmarshal(data, &spec) != nil || spec.Agent != ctxkeep.AgentCodex {
		t.Errorf("spool spec %s", data)
	}
	f.add("turn_context", map[string]any{"cwd": "/p", "model": "gpt-5.5", "approval_policy": "on-request", "sandbox_policy": map[string]any{"type": "workspace-write"}})
	pre["tool_use_id"] = "call_10"
	if r := f.call("PreToolUse", pre); r != nil {
		t.Errorf("wrapped in a sandbox: %v", r)
	}
}

// Past a warning level, the model is told with the next tool output (a
// Codex turn is often one long run of tool calls), in Codex's terms.
func TestCodexWarnsWithAToolCall(t *testing.T) {
	f := newCodexFixture(t)
	os.WriteFile(codex.ConfigFile(f.codexHome), []byte("model_auto_compact_token_limit = 10000\n"), 0o600)
	f.add("event_msg", map[string]any{"type": "token_count", "info": map[string]any{
		"last_token_usage": map[string]any{"input_tokens": 9000, "output_tokens": 100, "total_tokens": 9100}, "model_context_window": 258400}})
	reply := f.post("call_1", "echo hi", "hi\n", 0)
	specific, _ := reply["hookSpecificOutput"].(map[string]any)
	ctx, _ := specific["additionalContext"].(string)
	if reply["decision"] != nil || !strings.Contains(ctx, "90% of the point where Codex compacts it automatically (9,100 of 10,000 tokens") {
		t.Fatalf("reply %v; log %s", reply, f.log())
	}
	if again := f.post("call_2", "echo hi", "hi\n", 0); again != nil {
		t.Errorf("warned twice: %v", again)
	}
}

// After a compaction, SessionStart(compact) gives the model the restore
// block: the working state from the rollout, within Codex's cut.
func TestCodexRestoresAfterCompaction(t *testing.T) {
	f := newCodexFixture(t)
	f.add("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "fix the refund rounding"}}})
	f.post("call_1", "go test ./...", "--- FAIL: TestRefund (0.00s)\n    refund_test.go:42: got 1999 want 2000\nFAIL\n", 1)
	// The client records each answer as an item, then as a message.
	f.add("event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "AgentMessage", "id": "msg_1"}})
	f.add("response_item", map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "content": []any{map[string]any{"type": "output_text",
		"text": "We decided to round half-even in refunds, because the ledger does."}}})
	f.add("compacted", map[string]any{"message": "Another language model started to solve this problem… SUMMARY"})
	reply := f.call("SessionStart", map[string]any{"source": "compact"})
	specific, _ := reply["hookSpecificOutput"].(map[string]any)
	text, _ := specific["additionalContext"].(string)
	for _, want := range []string{"ctxkeep restored this session's working state", "round half-even", "TestRefund"} {
		if !strings.Contains(text, want) {
			t.Errorf("restore block lacks %q:\n%s", want, text)
		}
	}
	if len(text) > codex.MaxHookText {
		t.Errorf("restore block of %d bytes", len(text))
	}
	chunks, _ := f.openStore(t, store.Existing).Chunks(context.Background(), session)
	// The turn's two steps (the test run, then the decision) and the summary.
	if len(chunks) != 3 || chunks[0].Agent != ctxkeep.AgentCodex || chunks[1].Step != 2 || chunks[2].Kind != ctxkeep.KindSummary {
		t.Errorf("archive %+v", chunks)
	}
}
