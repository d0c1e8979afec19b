package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

func read(t *testing.T, name string, from transcript.Cursor) *transcript.TurnsRead {
	t.Helper()
	r, err := Reader{}.Read("testdata/"+name, from, ctxkeep.Usage{}, transcript.ReadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A rollout with a shell command, an apply_patch and a failed view_image
// reads as one turn: the prompt, each call in the archive's names with
// its own output and exit status, the model's answer, and the usage of
// the last response in the window the client recorded.
func TestReadsATurnWithItsCalls(t *testing.T) {
	r := read(t, "rollout_multi_tools.trimmed.jsonl", transcript.Cursor{})
	if len(r.Turns) != 1 || r.Problems != 0 {
		t.Fatalf("%d turns, %d problems", len(r.Turns), r.Problems)
	}
	turn := r.Turns[0]
	if turn.UserText != "Run the command please" || !strings.HasPrefix(turn.AssistantText, "Done: the command printed hello") {
		t.Errorf("texts %q / %q", turn.UserText, turn.AssistantText)
	}
	if len(turn.Calls) != 3 {
		t.Fatalf("%d calls: %+v", len(turn.Calls), turn.Calls)
	}
	bash, patch, image := turn.Calls[0], turn.Calls[1], turn.Calls[2]
	if bash.ID != "call_mock_1" || bash.Name != "Bash" || input(bash)["command"] != "echo hello; seq 1 2000" {
		t.Errorf("shell call %s %s %s", bash.ID, bash.Name, bash.Input)
	}
	if bash.Result == nil || bash.Result.Exit == nil || *bash.Result.Exit != 0 || bash.Result.IsError || !strings.HasPrefix(bash.Result.Text(), "hello\n1\n2\n") {
		t.Errorf("shell result %+v", bash.Result)
	}
	if patch.Name != "Write" || input(patch)["file_path"] != "/home/user/work/hello.txt" || patch.Result == nil || !strings.Contains(patch.Result.Text(), "Success. Updated") {
		t.Errorf("apply_patch %s %s %+v", patch.Name, patch.Input, patch.Result)
	}
	if image.Name != "view_image" || image.Result == nil || !strings.Contains(image.Result.Text(), "unable to locate image") {
		t.Errorf("view_image %s %+v", image.Name, image.Result)
	}
	if turn.At.Offset == 0 || turn.At.Line != 1 || turn.Start.IsZero() || !turn.End.After(turn.Start) {
		t.Errorf("turn at %+v, %v → %v", turn.At, turn.Start, turn.End)
	}
	u := r.Usage
	if u.Tokens != 1050 || u.InputTokens != 1000 || u.Window != 258400 || u.Model != "gpt-5.5" || u.Compacted {
		t.Errorf("usage %+v", u)
	}
}

// A compaction in the middle of a turn is a summary at its offset, marks
// the turn, and the usage afterwards is the next response's.
func TestReadsACompaction(t *testing.T) {
	r := read(t, "rollout_compact.trimmed.jsonl", transcript.Cursor{})
	if len(r.Summaries) != 1 || !strings.HasPrefix(r.Summaries[0].Text, "Another language model started") {
		t.Fatalf("summaries %+v", r.Summaries)
	}
	if len(r.Turns) != 1 || !r.Turns[0].Compacted || r.Summaries[0].Offset <= r.Turns[0].At.Offset {
		t.Errorf("turns %+v", r.Turns)
	}
	if u := r.Usage; u.Tokens != 1050 || u.Compacted {
		t.Errorf("usage after the compaction's next response %+v", u)
	}
	// Read up to just after the compaction, the usage is the client's
	// estimate of what is left, marked compacted.
	var u ctxkeep.Usage
	f, _ := transcript.ReadFile("testdata/rollout_compact.trimmed.jsonl", transcript.Cursor{})
	for _, rec := range f.Records {
		kind, p, _ := decode(rec.Raw)
		takeUsage(&u, kind, &p, rec.Timestamp)
		if kind == lineEventMsg && p.Type == "item_completed" && p.Item != nil && p.Item.Type == "ContextCompaction" {
			break
		}
	}
	if !u.Compacted || u.Tokens != 6878 {
		t.Errorf("usage right after the compaction %+v", u)
	}
}

// A Stop hook's continuation and a subagent's notification are the
// client's words in the user's role: they open no turn.
func TestClientMessagesOpenNoTurn(t *testing.T) {
	for _, name := range []string{"rollout_stop_block.trimmed.jsonl", "rollout_subagent_parent.trimmed.jsonl"} {
		r := read(t, name, transcript.Cursor{})
		if len(r.Turns) != 1 || r.Turns[0].UserText != "Run the command please" {
			t.Errorf("%s: %d turns, first %q", name, len(r.Turns), r.Turns[0].UserText)
		}
	}
	r := read(t, "rollout_subagent_parent.trimmed.jsonl", transcript.Cursor{})
	if c := r.Turns[0].Calls; len(c) != 2 || c[0].Name != "spawn_agent" || c[1].Name != "wait_agent" {
		t.Errorf("subagent calls %+v", c)
	}
}

// Reading from a turn's cursor gives that turn again, whole: the archive
// resumes there.
func TestReadsFromATurnCursor(t *testing.T) {
	all := read(t, "rollout_multi_tools.trimmed.jsonl", transcript.Cursor{})
	again := read(t, "rollout_multi_tools.trimmed.jsonl", all.Turns[0].At)
	if len(again.Turns) != 1 || len(again.Turns[0].Calls) != 3 || again.Turns[0].UserText != all.Turns[0].UserText {
		t.Errorf("from the cursor: %+v", again.Turns)
	}
}

func TestToolNames(t *testing.T) {
	for _, c := range []struct{ name, ns, want string }{
		{"echo", "mcp__demo", "mcp__demo__echo"},
		{"mcp__demo__echo", "", "mcp__demo__echo"},
		{"spawn_agent", "multi_agent_v1", "spawn_agent"},
	} {
		if got := toolName(c.name, c.ns); got != c.want {
			t.Errorf("toolName(%q, %q) = %q", c.name, c.ns, got)
		}
	}
	for _, c := range []struct{ args, want string }{
		{`{"cmd":"go test ./..."}`, "go test ./..."},
		{`{"command":["bash","-lc","make"]}`, "make"},
		{`{"command":"ls -la"}`, "ls -la"},
		{`{"command":["git","commit","-m","fix it; rm x"]}`, `git commit -m 'fix it; rm x'`},
	} {
		if got := shellCommand(json.RawMessage(c.args)); got != c.want {
			t.Errorf("shellCommand(%s) = %q", c.args, got)
		}
	}
}

func input(c transcript.ToolCall) map[string]string {
	var m map[string]string
	json.Unmarshal(c.Input, &m)
	return m
}

// The answer to Codex's compaction request is recorded like the model's
// answers: it is the summary, not part of the turn's reply.
func TestCompactionAnswerIsNotTheReply(t *testing.T) {
	r := read(t, "rollout_compact.trimmed.jsonl", transcript.Cursor{})
	if strings.Contains(r.Turns[0].AssistantText, "MOCK-SUMMARY") || !strings.HasPrefix(r.Turns[0].AssistantText, "Done: the command printed") {
		t.Errorf("reply %q", r.Turns[0].AssistantText)
	}
}

// A long turn is cut into steps as a Claude Code turn is: the model's
// words start a step and the calls they announce join it, at most
// transcript.StepRun of them; the cut is the same when the turn is read
// again after it grew (the archive's step keys stay).
func TestLongTurnIsCutIntoSteps(t *testing.T) {
	lines := []string{
		line("2026-11-26T10:00:00.000Z", "session_meta", map[string]any{"id": "s1", "cwd": "/p", "cli_version": "0.169.0"}),
		line("2026-11-26T10:00:01.000Z", "response_item", map[string]any{"type": "message", "role": "user",
			"content": []map[string]string{{"type": "input_text", "text": "make the suite pass"}}}),
		say("2026-11-26T10:00:02.000Z", "I will run each package's tests."),
	}
	for i := range 6 {
		id := fmt.Sprintf("call_%d", i)
		lines = append(lines,
			line(fmt.Sprintf("2026-11-26T10:01:%02d.000Z", i), "response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": id,
				"arguments": fmt.Sprintf(`{"cmd":"go test ./pkg%d"}`, i)}),
			line(fmt.Sprintf("2026-11-26T10:01:%02d.500Z", i), "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": "ok"}))
	}
	grown := len(lines)
	lines = append(lines, say("2026-11-26T10:02:00.000Z", "pkg3 fails; fixing it."),
		line("2026-11-26T10:02:01.000Z", "response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_fix",
			"arguments": `{"cmd":"sed -i s/1999/2000/ pkg3/refund.go"}`}),
		say("2026-11-26T10:02:02.000Z", "Fixed: every package passes."))
	path := filepath.Join(t.TempDir(), "rollout.jsonl")

	cut := func(lines []string) []transcript.StepAt {
		writeRollout(t, path, lines)
		f, err := Reader{}.Read(path, transcript.Cursor{}, ctxkeep.Usage{}, transcript.ReadLimits{})
		if err != nil || len(f.Turns) != 1 {
			t.Fatalf("read: %+v, %v", f, err)
		}
		return f.Turns[0].Steps
	}
	steps := cut(lines)
	var got []string
	for _, s := range steps {
		var cmds []string
		for _, c := range s.Calls {
			cmds = append(cmds, strings.TrimPrefix(strings.TrimSuffix(string(c.Input), `"}`), `{"command":"`))
		}
		got = append(got, fmt.Sprintf("%q %v", s.AssistantText, cmds))
	}
	want := []string{
		`"I will run each package's tests." [go test ./pkg0 go test ./pkg1 go test ./pkg2 go test ./pkg3]`,
		`"" [go test ./pkg4 go test ./pkg5]`,
		`"pkg3 fails; fixing it." [sed -i s/1999/2000/ pkg3/refund.go]`,
		`"Fixed: every package passes." []`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if steps[0].UserText != "make the suite pass" || steps[1].UserText != "" || steps[0].At == steps[1].At {
		t.Errorf("first step's prompt %q, second's %q; starts %v, %v", steps[0].UserText, steps[1].UserText, steps[0].At, steps[1].At)
	}
	early := cut(lines[:grown])
	if len(early) != 2 || early[0].At != steps[0].At || early[1].At != steps[1].At || len(early[0].Calls) != 4 {
		t.Errorf("the turn read before it grew: %d steps", len(early))
	}
}

func say(ts, text string) string {
	return line(ts, "response_item", map[string]any{"type": "message", "role": "assistant",
		"content": []map[string]string{{"type": "output_text", "text": text}}})
}
