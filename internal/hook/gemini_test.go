package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// geminiFixture is a fixture with a migrated index and a Gemini CLI chat
// (a real one of 0.61.0) where the CLI keeps it.
type geminiFixture struct {
	*fixture
	chat string
}

func newGeminiFixture(t *testing.T) *geminiFixture {
	f := newFixture(t)
	delete(f.vars, "AI_AGENT")
	st, err := store.Open(context.Background(), f.dirs().IndexDB(), f.dirs().Blobs(), store.Migrate, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	home := t.TempDir()
	f.vars["HOME"] = home
	chats := filepath.Join(home, ".gemini", "tmp", "project", "chats")
	os.MkdirAll(chats, 0o700)
	data, err := os.ReadFile("testdata/gemini/chat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(chats, "session-2026-11-28T17-59-"+session[:8]+".jsonl")
	os.WriteFile(chat, data, 0o600)
	return &geminiFixture{fixture: f, chat: chat}
}

// call runs one Gemini CLI event read from a real payload (testdata/gemini/
// hook.NAME.json), with fields changed, and decodes the reply (nil when
// stdout is empty).
func (g *geminiFixture) call(name string, fields map[string]any) map[string]any {
	g.t.Helper()
	data, err := os.ReadFile("testdata/gemini/hook." + name + ".json")
	if err != nil {
		g.t.Fatal(err)
	}
	var ev map[string]any
	json.Unmarshal(data, &ev)
	delete(ev, "_note")
	ev["session_id"], ev["transcript_path"] = session, g.chat
	for k, v := range fields {
		ev[k] = v
	}
	payload, _ := json.Marshal(ev)
	var out bytes.Buffer
	runAs(time.Now(), ctxkeep.AgentGemini, g.env(), bytes.NewReader(payload), &out, geminiHandlers)
	if out.Len() == 0 {
		return nil
	}
	var reply map[string]any
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
		g.t.Fatalf("reply %q: %v", out.String(), err)
	}
	return reply
}

// shellResponse is run_shell_command's result as AfterTool gets it.
func shellResponse(output string, exit int) map[string]any {
	status := ""
	if exit != 0 {
		status = fmt.Sprintf("Exit Code: %d\n", exit)
	}
	return map[string]any{
		"llmContent":    "<untrusted_context>\nOutput: " + output + "\n" + status + "Process Group PGID: 4242\n</untrusted_context>",
		"returnDisplay": output,
	}
}

// A large shell result is replaced by the view, as a deny's reason; the
// exact output is stored with its exit status.
func TestGeminiAfterToolDeniesWithTheView(t *testing.T) {
	g := newGeminiFixture(t)
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	b.WriteString("error: ledger row 4999 does not balance")
	output := b.String()
	reply := g.call("AfterTool.small-shell-output", map[string]any{"tool_input": map[string]any{"command": "./reconcile.sh"},
		"tool_response": shellResponse(output, 2)})
	if reply == nil || reply["decision"] != "deny" {
		t.Fatalf("reply: %v", reply)
	}
	view, _ := reply["reason"].(string)
	for _, want := range []string{"[ctxkeep] Bash output swapped out", "exit status 2", "ledger row 4999 does not balance", "ctxkeep show "} {
		if !strings.Contains(view, want) {
			t.Errorf("the view lacks %q:\n%s", want, view)
		}
	}
	st, err := store.Open(context.Background(), g.dirs().IndexDB(), g.dirs().Blobs(), store.Existing, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	es, _ := st.Entries(context.Background(), ctxkeep.EntryFilter{Session: session})
	if len(es) != 1 || es[0].ExitCode == nil || *es[0].ExitCode != 2 || es[0].Tool != "Bash" || es[0].Input != "./reconcile.sh" || !strings.HasPrefix(es[0].ToolUseID, "gemini_") {
		t.Fatalf("entries: %+v", es)
	}
	got, err := st.Open(context.Background(), es[0].Hash)
	if err != nil || string(got) != output {
		t.Errorf("stored %d bytes (%v), want the %d of the output", len(got), err, len(output))
	}
}

// A small result stays as it is.
func TestGeminiAfterToolLeavesSmallResults(t *testing.T) {
	g := newGeminiFixture(t)
	if reply := g.call("AfterTool.small-shell-output", nil); reply != nil && reply["decision"] != nil {
		t.Errorf("reply: %v", reply)
	}
}

// A test runner is run through the wrapper: BeforeTool gives the CLI the
// rewritten command, the call's other arguments kept.
func TestGeminiBeforeToolWraps(t *testing.T) {
	g := newGeminiFixture(t)
	reply := g.call("BeforeTool", map[string]any{"tool_input": map[string]any{"command": "go test ./...", "description": "run the tests"}})
	spec, _ := reply["hookSpecificOutput"].(map[string]any)
	in, _ := spec["tool_input"].(map[string]any)
	cmd, _ := in["command"].(string)
	if !strings.Contains(cmd, " capture ") || !strings.Contains(cmd, "go test ./...") || in["description"] != "run the tests" || spec["permissionDecision"] != nil {
		t.Fatalf("reply: %v", reply)
	}
	if reply := g.call("BeforeTool", map[string]any{"tool_input": map[string]any{"command": "echo hi"}}); reply != nil {
		t.Errorf("echo: %v", reply)
	}
}

// After a compression, BeforeModel puts the restore block after the
// snapshot, in the same message; the same block again for each request of
// that history. A request without a snapshot is left alone.
func TestGeminiBeforeModelRestores(t *testing.T) {
	g := newGeminiFixture(t)
	if reply := g.call("BeforeModel", nil); reply != nil {
		t.Fatalf("a history without a snapshot got %v", reply)
	}
	req := map[string]any{"model": "gemini-2.5-pro", "config": map[string]any{"temperature": 1}, "messages": []any{
		map[string]any{"role": "user", "content": "<session_context>\nctx\n</session_context><state_snapshot>\nSUMMARY\n</state_snapshot>"},
		map[string]any{"role": "model", "content": "Got it. Thanks for the additional context!"},
		map[string]any{"role": "user", "content": "now post the totals"},
	}}
	var blocks []string
	for range 2 {
		reply := g.call("BeforeModel", map[string]any{"llm_request": req})
		spec, _ := reply["hookSpecificOutput"].(map[string]any)
		edited, _ := spec["llm_request"].(map[string]any)
		msgs, _ := edited["messages"].([]any)
		if len(msgs) != 3 || edited["model"] != "gemini-2.5-pro" {
			log, _ := os.ReadFile(g.dirs().Log())
			t.Fatalf("reply: %v\nlog:\n%s", reply, log)
		}
		first, _ := msgs[0].(map[string]any)["content"].(string)
		before, block, ok := strings.Cut(first, "\n\nctxkeep restored this session's working state")
		if !ok || !strings.HasSuffix(before, "</state_snapshot>") || !strings.Contains(block, "./t.sh") {
			t.Fatalf("first message:\n%s", first)
		}
		if last, _ := msgs[2].(map[string]any)["content"].(string); last != "now post the totals" {
			t.Errorf("last message %q", last)
		}
		blocks = append(blocks, block)
	}
	if blocks[0] != blocks[1] {
		t.Errorf("two blocks for one snapshot:\n%s\n---\n%s", blocks[0], blocks[1])
	}
}

// PreCompress archives and says nothing (the CLI would ignore it).
func TestGeminiPreCompressArchives(t *testing.T) {
	g := newGeminiFixture(t)
	if reply := g.call("PreCompress", nil); reply != nil {
		t.Errorf("reply: %v", reply)
	}
	st, err := store.Open(context.Background(), g.dirs().IndexDB(), g.dirs().Blobs(), store.Existing, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	heads, err := st.ChunkHeads(context.Background(), session)
	if err != nil || len(heads) == 0 || heads[0].Agent != ctxkeep.AgentGemini {
		t.Fatalf("chunks: %+v %v", heads, err)
	}
}

// After a resume in another minute than the session began, SessionStart
// names a stray chat of the resume (a header, nothing of the
// conversation): the hooks read the session's first chat all the same,
// and the journal records it.
func TestGeminiReadsTheSessionsFirstChat(t *testing.T) {
	g := newGeminiFixture(t)
	data, _ := os.ReadFile(g.chat)
	data = bytes.ReplaceAll(data, []byte("1cd246ab-7034-4ba9-8f7a-76f689c2fcf2"), []byte(session)) // the chat's header names the session
	os.WriteFile(g.chat, data, 0o600)
	header, _, _ := strings.Cut(string(data), "\n")
	stray := filepath.Join(filepath.Dir(g.chat), "session-2026-11-28T18-30-"+session[:8]+".jsonl")
	os.WriteFile(stray, []byte(header+"\n"), 0o600)
	g.call("PreCompress", map[string]any{"transcript_path": stray})
	st, err := store.Open(context.Background(), g.dirs().IndexDB(), g.dirs().Blobs(), store.Existing, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if heads, err := st.ChunkHeads(context.Background(), session); err != nil || len(heads) == 0 {
		t.Errorf("archived from the stray chat: %+v %v", heads, err)
	}
	for _, e := range g.journal(session) {
		if e.Transcript != g.chat {
			t.Errorf("journal: %s %s", e.Event, e.Transcript)
		}
	}
}
