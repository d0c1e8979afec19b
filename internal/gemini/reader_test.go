package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A real chat of 0.61.0: one prompt, a failing command, the answer.
func TestReaderFailingCommand(t *testing.T) {
	got, err := Reader{}.Read("testdata/failing-command.jsonl", transcript.Cursor{}, ctxkeep.Usage{}, transcript.ReadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 1 || got.Problems != 0 {
		t.Fatalf("%d turns, %d problems", len(got.Turns), got.Problems)
	}
	turn := got.Turns[0]
	if turn.UserText != "go" || turn.AssistantText != "done" || len(turn.Calls) != 1 {
		t.Fatalf("turn: %q %q %d calls", turn.UserText, turn.AssistantText, len(turn.Calls))
	}
	c := turn.Calls[0]
	if c.Name != "Bash" || string(c.Input) != `{"command":"./t.sh"}` || c.Result == nil {
		t.Fatalf("call: %+v", c)
	}
	if r := c.Result; r.Content.String != "--- FAIL: X" || r.Exit == nil || *r.Exit != 1 || !r.IsError {
		t.Errorf("result: %q exit %v error %t", r.Content.String, r.Exit, r.IsError)
	}
	if len(turn.Steps) != 2 {
		t.Errorf("%d steps", len(turn.Steps))
	}
	if !got.Usage.Known() || got.Usage.Tokens != 1000 || got.Usage.Window != 1_048_576 || got.Usage.Model != "gemini-2.5-pro" {
		t.Errorf("usage: %+v", got.Usage)
	}
}

// The same after a BeforeTool hook rewrote the command: the CLI adds a
// line of its own after the result.
func TestReaderRewrittenCommand(t *testing.T) {
	got, err := Reader{}.Read("testdata/wrapped-failing-command.jsonl", transcript.Cursor{}, ctxkeep.Usage{}, transcript.ReadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	c := got.Turns[0].Calls[0]
	if r := c.Result; r == nil || r.Content.String != "--- FAIL: X" || r.Exit == nil || *r.Exit != 1 {
		t.Errorf("result: %+v", r)
	}
}

func TestShellOutput(t *testing.T) {
	for _, c := range []struct {
		in, out string
		exit    int
	}{
		{"<untrusted_context>\nOutput: a\nb\nProcess Group PGID: 1\n</untrusted_context>", "a\nb", 0},
		{"<untrusted_context>\nOutput: x\nExit Code: 3\nProcess Group PGID: 1\n</untrusted_context>\n\n[System] Tool input parameters were modified by a hook before execution.", "x", 3},
		{"<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 1\n</untrusted_context>", "", 0},
		{"plain", "plain", -1},
	} {
		out, exit := ShellOutput(c.in)
		if out != c.out || exit != c.exit {
			t.Errorf("ShellOutput(%q) = %q, %d; want %q, %d", c.in, out, exit, c.out, c.exit)
		}
	}
	// An output whose last line looks like a status line is kept whole
	// when the CLI's display says so.
	resp := []byte(`{"llmContent": "<untrusted_context>\nOutput: Error: boom\nExit Code: 2\nProcess Group PGID: 9\n</untrusted_context>", "returnDisplay": "Error: boom"}`)
	out, err := ReadOutput(Shell, resp)
	if err != nil || out.Text != "Error: boom" || out.Exit != 2 {
		t.Errorf("ReadOutput: %+v %v", out, err)
	}
}

// A real chat of two prompts, the second resumed and compressed first
// (model.compressionThreshold 0.0001): the resume writes the history
// again ($set, in the API's shape), which is not read as new turns; the
// compression's snapshot is a summary; the usage starts a new cycle.
func TestReaderResumedAndCompressed(t *testing.T) {
	got, err := Reader{}.Read("testdata/resumed-compressed.jsonl", transcript.Cursor{}, ctxkeep.Usage{}, transcript.ReadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 2 || got.Turns[0].UserText != "say hello" || got.Turns[1].UserText != "go on" {
		t.Fatalf("turns: %+v", got.Turns)
	}
	if len(got.Turns[0].Calls) != 1 || got.Turns[0].AssistantText != "first done" || got.Turns[1].AssistantText != "second done" {
		t.Errorf("first turn: %d calls, %q; second: %q", len(got.Turns[0].Calls), got.Turns[0].AssistantText, got.Turns[1].AssistantText)
	}
	if len(got.Summaries) != 1 || !strings.Contains(got.Summaries[0].Text, "FAKE-SUMMARY") {
		t.Errorf("summaries: %+v", got.Summaries)
	}
	if got.Usage.Compacted || got.Usage.Tokens != 1000 {
		t.Errorf("usage after the last response: %+v", got.Usage)
	}
	// Read again from each turn's cursor: the same turns from there on.
	second, err := Reader{}.Read("testdata/resumed-compressed.jsonl", got.Turns[1].At, ctxkeep.Usage{}, transcript.ReadLimits{})
	if err != nil || len(second.Turns) != 1 || second.Turns[0].UserText != "go on" {
		t.Errorf("from the second turn: %+v %v", second, err)
	}
}

// The Dialect sees the compression, then the next response.
func TestUsageDialect(t *testing.T) {
	data, err := os.ReadFile("testdata/resumed-compressed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var u ctxkeep.Usage
	compactions := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !(Usage{}).MayMatter([]byte(line)) {
			continue
		}
		if (Usage{}).Take(&u, []byte(line)) {
			compactions++
			if !u.Compacted {
				t.Error("a compression leaves the usage not compacted")
			}
		}
	}
	if compactions != 1 || u.Compacted || u.Tokens != 1000 || u.Window != 1_048_576 {
		t.Errorf("%d compactions, usage %+v", compactions, u)
	}
	if w, c := Thresholds("gemini-2.5-pro", 0); w != 1_048_576 || c != 524_288 {
		t.Errorf("thresholds %d %d", w, c)
	}
	if _, c := Thresholds("gemma-4-31b-it", 0.7); c != 179_200 {
		t.Errorf("gemma threshold %d", c)
	}
}

func TestReadMetaAndFind(t *testing.T) {
	m, err := ReadMeta("testdata/resumed-compressed.jsonl")
	if err != nil || m.ID != "e0a34b33-5ee5-404d-82ad-657999ab4b69" || !strings.HasSuffix(m.Workspace, "/home/project") {
		t.Fatalf("meta: %+v %v", m, err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, "tmp", "project", "chats")
	os.MkdirAll(dir, 0o700)
	data, _ := os.ReadFile("testdata/resumed-compressed.jsonl")
	path := filepath.Join(dir, "session-2026-11-28T17-45-e0a34b33.jsonl")
	os.WriteFile(path, data, 0o600)
	for _, id := range []string{"e0a34b33", "e0a34b33-5ee5", m.ID} {
		if got, err := Find(home, id); err != nil || got != path {
			t.Errorf("Find(%q) = %q, %v", id, got, err)
		}
	}
	if _, err := Find(home, "ffff"); err == nil {
		t.Error("found a session that is not there")
	}
	r, err := ReadReport(path)
	if err != nil || r.Responses != 3 || len(r.Compactions) != 1 || r.Peak != 1000 {
		t.Errorf("report: %+v %v", r, err)
	}
}

// A resume in another minute than the session began leaves a stray chat
// named for that minute (its header and session context only), which
// SessionStart names while the conversation goes on in the first: the
// first is the session's chat, for the hooks, `archive --all` and Find. A
// chat of another session whose id starts alike is its own.
func TestSessionChatPassesOverAResumesStrayFile(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "tmp", "project", "chats")
	os.MkdirAll(dir, 0o700)
	data, _ := os.ReadFile("testdata/resumed-compressed.jsonl")
	header, _, _ := strings.Cut(string(data), "\n")
	first := filepath.Join(dir, "session-2026-11-28T17-45-e0a34b33.jsonl")
	stray := filepath.Join(dir, "session-2026-11-28T17-52-e0a34b33.jsonl")
	other := filepath.Join(dir, "session-2026-11-28T18-00-e0a34b33.jsonl")
	os.WriteFile(first, data, 0o600)
	os.WriteFile(stray, []byte(header+"\n"), 0o600)
	os.WriteFile(other, []byte(strings.Replace(header, "e0a34b33-5ee5", "e0a34b33-0000", 1)+"\n"), 0o600)
	const id = "e0a34b33-5ee5-404d-82ad-657999ab4b69"
	for _, p := range []string{first, stray} {
		if got := SessionChat(p, id); got != first {
			t.Errorf("SessionChat(%s) = %s", filepath.Base(p), filepath.Base(got))
		}
	}
	if got := SessionChat(other, "e0a34b33-0000-404d-82ad-657999ab4b69"); got != other {
		t.Errorf("another session's chat: %s", filepath.Base(got))
	}
	if chats, err := Chats(home); err != nil || len(chats) != 2 || chats[0] != first || chats[1] != other {
		t.Errorf("Chats: %v %v", chats, err)
	}
	if got, err := Find(home, "e0a34b33-5ee5"); err != nil || got != first {
		t.Errorf("Find = %q, %v", got, err)
	}
}
