package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// spotter holds five real Claude Code sessions (2.1.38/2.1.39), each with
// one compaction (shared/data/PROVENANCE.md §1).
const spotter = "../../shared/data/cc-sessions-spotter"

func spotterSessions(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(spotter, "*-*-*-*-*.jsonl"))
	if len(files) == 0 {
		realdata.Missing(t, "real sessions not found at %s", spotter)
	}
	return files
}

// placeSession copies a transcript where the client looks for the session
// when resumed from the harness's project (the records' own cwd may stay:
// 2.1.330 resumes them as they are), written an hour ago, so that it is
// not live.
func placeSession(t *testing.T, h *clienttest.Harness, id string, data []byte) string {
	t.Helper()
	path := h.TranscriptPath(id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	return path
}

// stubRE finds what a purge stub names.
var stubRE = regexp.MustCompile(`^\[ctxkeep\] This tool result was moved out of the transcript by ` + "`ctxkeep purge`" +
	` and is kept exactly\.\nid: ([0-9a-f]{12}) \(sha256 ([0-9a-f]{64})\)`)

// stubs returns the stubs of a transcript by tool_use id: [id, sha256].
func stubs(t *testing.T, data []byte) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for toolUseID, text := range results(t, data) {
		if m := stubRE.FindStringSubmatch(text); m != nil {
			out[toolUseID] = [2]string{m[1], m[2]}
		}
	}
	return out
}

// results maps each tool_use id of a transcript to its result's text.
func results(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		rec, err := transcript.ParseLine(line)
		if err != nil || rec.Type != transcript.TypeUser || rec.Message == nil {
			continue
		}
		for _, b := range rec.Message.Content.Blocks {
			if b.Type == transcript.BlockToolResult {
				out[b.ToolUseID] = b.Content.Text()
			}
		}
	}
	return out
}

// purged is the part of `ctxkeep purge --json` the tests read.
type purged struct {
	Repairs []struct {
		Kind string `json:"kind"`
	} `json:"repairs"`
	Stubs       []json.RawMessage `json:"stubs"`
	BytesBefore int64             `json:"bytes_before"`
	BytesAfter  int64             `json:"bytes_after"`
	Backup      string            `json:"backup"`
}

// TestPurgedRealSessionsResume purges copies of the real spotter sessions,
// then has the real client resume each: the first request it sends carries
// the stubs, never the original large results, in a conversation the API
// would accept; and what every stub names comes back, SHA-256 for SHA-256,
// as the original result.
func TestPurgedRealSessionsResume(t *testing.T) {
	for _, file := range spotterSessions(t) {
		id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(id[:8], func(t *testing.T) {
			original, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// What the model is sent when the original is resumed, to compare.
			h := clienttest.New(t)
			placeSession(t, h, id, original)
			h.API.Script(fakeapi.Say("resumed"))
			h.Run("continue", "--resume", id)
			unpurged := h.API.RequestsOf(fakeapi.Main)[0]

			h = clienttest.New(t)
			ck := newCtxkeep(t, h)
			path := placeSession(t, h, id, original)
			var rep purged
			ck.runJSON(&rep, "purge", id)
			purgedData, _ := os.ReadFile(path)
			if backup, _ := os.ReadFile(rep.Backup); !bytes.Equal(backup, original) {
				t.Fatal("the backup is not the original")
			}
			named := stubs(t, purgedData)
			if len(named) == 0 || len(named) != len(rep.Stubs) || rep.BytesAfter >= rep.BytesBefore {
				t.Fatalf("%d stubs in the transcript, %d reported, %d → %d bytes", len(named), len(rep.Stubs), rep.BytesBefore, rep.BytesAfter)
			}
			before := results(t, original)
			for toolUseID, s := range named {
				sum := sha256.Sum256([]byte(before[toolUseID]))
				if hex.EncodeToString(sum[:]) != s[1] {
					t.Fatalf("stub of %s names sha256 %s, the original is %x", toolUseID, s[1], sum)
				}
				got := sha256.Sum256([]byte(ck.run("show", s[0])))
				if got != sum {
					t.Fatalf("`ctxkeep show %s` gives content with sha256 %x, the original result has %x", s[0], got, sum)
				}
			}

			h.API.Script(fakeapi.Say("resumed"))
			h.Run("continue", "--resume", id)
			first := h.API.RequestsOf(fakeapi.Main)[0]
			checkConversation(t, first)
			shown := 0
			for toolUseID, s := range named {
				text, ok := first.ToolResult(toolUseID)
				if !ok {
					continue // summarised away by the session's compaction
				}
				shown++
				if !strings.Contains(text, "id: "+s[0]) || strings.Contains(text, before[toolUseID][:min(200, len(before[toolUseID]))]) {
					t.Errorf("the model was sent %s's original result, not its stub:\n%s", toolUseID, truncate(text, 300))
				}
			}
			if shown == 0 {
				t.Fatal("no stub in the resumed conversation")
			}
			early, all := earlyThinking(t, first)
			if early != 0 {
				t.Errorf("%d thinking blocks sent from before the last turn", early)
			}
			if len(first.Messages()) != len(unpurged.Messages()) {
				t.Errorf("the resumed conversation has %d messages, %d unpurged", len(first.Messages()), len(unpurged.Messages()))
			}
			t.Logf("transcript %d → %d bytes; %d stubs, %d in the resumed conversation of %d messages (%d thinking blocks, all in the last turn); first request %d → %d bytes",
				rep.BytesBefore, rep.BytesAfter, len(named), shown, len(first.Messages()), all, len(unpurged.Body), len(first.Body))
		})
	}
}

// TestCorruptedSessionRepaired damages a copy of a real session the way
// transcripts break (a tool_result whose tool_use is gone, a parent link
// naming no record, a torn last line) and purges it: resumed by the real
// client, the whole conversation comes back (without the repair the client
// loads only what follows the broken link), and the API would accept it.
func TestCorruptedSessionRepaired(t *testing.T) {
	file := spotterSessions(t)[0]
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	original, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	corrupted := corrupt(t, original)

	// Unrepaired, the client loses the conversation before the break.
	h := clienttest.New(t)
	placeSession(t, h, id, corrupted)
	h.API.Script(fakeapi.Say("resumed"))
	h.Run("continue", "--resume", id)
	broken := len(h.API.RequestsOf(fakeapi.Main)[0].Messages())

	h = clienttest.New(t)
	ck := newCtxkeep(t, h)
	path := placeSession(t, h, id, corrupted)
	var rep purged
	ck.runJSON(&rep, "purge", id)
	kinds := map[string]int{}
	for _, r := range rep.Repairs {
		kinds[r.Kind]++
	}
	for _, k := range []string{"orphan_result", "missing_result", "broken_parent", "torn_line"} {
		if kinds[k] == 0 {
			t.Errorf("no %s repair: %v", k, kinds)
		}
	}
	repaired, _ := os.ReadFile(path)
	h.API.Script(fakeapi.Say("resumed"))
	h.Run("continue", "--resume", id)
	first := h.API.RequestsOf(fakeapi.Main)[0]
	checkConversation(t, first)
	if n := len(first.Messages()); n < 50 || n <= broken {
		t.Fatalf("the resumed conversation has %d messages (%d unrepaired)", n, broken)
	}
	if !first.Contains(`[ctxkeep purge] No result was recorded for this tool call`) {
		t.Error("the call that lost its result was not answered")
	}
	for _, s := range stubs(t, repaired) {
		if got := sha256.Sum256([]byte(ck.run("show", s[0]))); hex.EncodeToString(got[:]) != s[1] {
			t.Fatalf("stored result %s does not match its stub", s[0])
		}
	}
	t.Logf("unrepaired: %d messages sent; repaired: %d; repairs %v", broken, len(first.Messages()), kinds)
}

// corrupt breaks a transcript in the live part of the conversation (after
// its compaction): the result of one call is pointed at a tool_use that
// does not exist (an orphan result, and a call without result), the last
// prompt's parent link names no record, and half a line ends the file.
func corrupt(t *testing.T, data []byte) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	lastResult, lastPrompt := -1, -1
	for i, l := range lines {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) != nil || rec["type"] != "user" {
			continue
		}
		switch content := rec["message"].(map[string]any)["content"].(type) {
		case string:
			if !strings.HasPrefix(content, "<") && rec["isMeta"] != true {
				lastPrompt = i
			}
		case []any:
			if b, ok := content[0].(map[string]any); ok && b["type"] == "tool_result" {
				lastResult = i
			}
		}
	}
	if lastResult < 0 || lastPrompt < 0 {
		t.Fatal("no result or prompt to corrupt")
	}
	lines[lastResult] = regexp.MustCompile(`"tool_use_id":"toolu_[0-9A-Za-z]+"`).ReplaceAllString(lines[lastResult], `"tool_use_id":"toolu_01Lost000000000000000000"`)
	lines[lastPrompt] = regexp.MustCompile(`"parentUuid":"[0-9a-f-]+"`).ReplaceAllString(lines[lastPrompt], `"parentUuid":"deadbeef-0000-4000-8000-000000000000"`)
	torn := lines[len(lines)-1]
	return []byte(strings.Join(lines, "\n") + "\n" + torn[:len(torn)/2])
}

// checkConversation checks the request as the Messages API would: every
// tool_use answered by a tool_result in the next message, every tool_result
// answering a tool_use of the message before it.
func checkConversation(t *testing.T, r *fakeapi.Request) {
	t.Helper()
	var msgs []fakeapi.Message
	for _, m := range r.Messages() {
		if m.Role != "system" { // the client's system entries are not turns
			msgs = append(msgs, m)
		}
	}
	for i, m := range msgs {
		var uses, answers []string
		for _, b := range m.Content {
			switch b.Type {
			case "tool_use":
				uses = append(uses, b.ID)
			case "tool_result":
				answers = append(answers, b.ToolUseID)
			}
		}
		if m.Role == "assistant" && len(uses) > 0 {
			if i+1 >= len(msgs) {
				t.Fatalf("message %d: tool_use %v is the last message", i, uses)
			}
			next := map[string]bool{}
			for _, b := range msgs[i+1].Content {
				next[b.ToolUseID] = b.Type == "tool_result"
			}
			for _, id := range uses {
				if !next[id] {
					t.Fatalf("message %d: tool_use %s has no tool_result in the next message", i, id)
				}
			}
		}
		if len(answers) > 0 {
			prev := map[string]bool{}
			if i > 0 {
				for _, b := range msgs[i-1].Content {
					prev[b.ID] = b.Type == "tool_use"
				}
			}
			for _, id := range answers {
				if !prev[id] {
					t.Fatalf("message %d: tool_result %s answers no tool_use of the message before", i, id)
				}
			}
		}
	}
}

// earlyThinking counts the thinking blocks a request sends before the
// last turn of the resumed transcript (the turn the last typed prompt
// opened, or everything when it was summarised away), in responses that
// say something else too: purge removes those, and keeps the others (the
// last turn's, which the API needs should the turn go on, and those of a
// response that is nothing but thinking). It also returns how many it sends
// in all.
func earlyThinking(t *testing.T, r *fakeapi.Request) (early, all int) {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	blocks := make([][]block, len(body.Messages))
	prompts := []int{}
	for i, m := range body.Messages {
		if json.Unmarshal(m.Content, &blocks[i]) != nil {
			var text string
			json.Unmarshal(m.Content, &text)
			blocks[i] = []block{{Type: "text", Text: text}}
		}
		for _, b := range blocks[i] {
			if m.Role == "user" && b.Type == "text" && typed(b.Text) {
				prompts = append(prompts, i)
				break
			}
		}
	}
	lastTurn := 0
	if len(prompts) >= 2 {
		lastTurn = prompts[len(prompts)-2] // the last prompt is the one typed to resume
	}
	for i, bs := range blocks {
		thinking, says := 0, false
		for _, b := range bs {
			switch {
			case b.Type == "thinking" || b.Type == "redacted_thinking":
				thinking++
			case b.Type != "text" || strings.TrimSpace(b.Text) != "":
				says = true
			}
		}
		all += thinking
		if i < lastTurn && says {
			early += thinking
		}
	}
	return early, all
}

// typed reports whether a user text is something the user typed, which
// opens a turn (as transcript.Turns sees it), rather than the client's own:
// reminders, task notifications, command wrappers, the compaction summary.
func typed(text string) bool {
	return !strings.HasPrefix(text, "<") && !strings.HasPrefix(text, "This session is being continued from a previous conversation")
}

// TestPinSlashCommands: `ctxkeep install` adds /pin-last and the others as
// the client's custom commands; typed in the real client, the hook pins
// and drops the prompt (no request reaches the model); a ccm:pin line in an
// ordinary prompt pins the next stored output and lets the prompt through;
// a malformed one pins nothing.
func TestPinSlashCommands(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	writeFixtures(t, h.Project)
	h.API.Script(fakeapi.Bash("toolu_run1", "sh gen.sh"), fakeapi.Say("done"))
	res := h.Run("run the generator", "--tools", "Bash")

	before := len(h.API.Requests())
	r := h.Run(`/pin-last hard reason="the first run"`, "--resume", res.SessionID)
	if len(h.API.Requests()) != before {
		t.Fatalf("the prompt reached the API (%d requests)", len(h.API.Requests())-before)
	}
	if !strings.Contains(r.Text, "ctxkeep: pinned ") || !strings.Contains(r.Text, "hard") {
		t.Fatalf("result: %q", r.Text)
	}

	h.API.Script(fakeapi.Bash("toolu_run2", "sh gen.sh"), fakeapi.Bash("toolu_run3", "sh gen.sh"), fakeapi.Say("done"))
	h.Run("run it twice more\nccm:pin next reason=\"the second run\"", "--resume", res.SessionID, "--tools", "Bash")
	prompt := h.API.RequestsOf(fakeapi.Main)[len(h.API.RequestsOf(fakeapi.Main))-3]
	if !strings.Contains(strings.Join(prompt.SystemMessages(), "\n"), "directives for ctxkeep, already handled") {
		t.Errorf("the model was not told the directive was handled")
	}

	r = h.Run("/pin-start medium", "--resume", res.SessionID)
	if !strings.Contains(r.Text, `unexpected \"medium\"`) && !strings.Contains(r.Text, `unexpected "medium"`) {
		t.Fatalf("malformed directive: %q", r.Text)
	}

	var pins struct {
		Pins []struct {
			ToolUseID string `json:"tool_use_id"`
			Level     string `json:"pin_level"`
			Reason    string `json:"pin_reason"`
		} `json:"pins"`
		Pending []json.RawMessage `json:"pending"`
	}
	ck.runJSON(&pins, "pins")
	got := map[string]string{}
	for _, p := range pins.Pins {
		got[p.ToolUseID] = p.Level + ":" + p.Reason
	}
	want := map[string]string{"toolu_run1": "hard:the first run", "toolu_run2": "soft:the second run"}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(pins.Pending) != 0 {
		t.Fatalf("pins = %v, pending %d; want %v", got, len(pins.Pending), want)
	}

	// Words for the model after a quoted reason: the directive is handled
	// and the prompt goes through, its words included (issue 25.4: the
	// whole prompt was blocked with "quote a reason that has spaces").
	h.API.Script(fakeapi.Say("continuing"))
	main := len(h.API.RequestsOf(fakeapi.Main))
	h.Run(`ccm:pin last hard reason="deploy log" please continue`, "--resume", res.SessionID)
	reqs := h.API.RequestsOf(fakeapi.Main)
	if len(reqs) != main+1 {
		t.Fatalf("the prompt with words after the directive reached the model %d time(s), want 1", len(reqs)-main)
	}
	if seen := reqs[len(reqs)-1]; !strings.Contains(seen.LastUserText(), "please continue") ||
		!strings.Contains(strings.Join(seen.SystemMessages(), "\n"), "directives for ctxkeep, already handled") {
		t.Errorf("what the model saw: %q, system %q", seen.LastUserText(), seen.SystemMessages())
	}
	// Pinned again with no level (/pin-last): still hard, its reason kept
	// (it became soft, its reason gone).
	if r := h.Run("/pin-last", "--resume", res.SessionID); !strings.Contains(r.Text, "was already pinned hard; nothing changed") {
		t.Errorf("/pin-last on a hard pin: %q", r.Text)
	}
	ck.runJSON(&pins, "pins")
	got = map[string]string{}
	for _, p := range pins.Pins {
		got[p.ToolUseID] = p.Level + ":" + p.Reason
	}
	if got["toolu_run3"] != "hard:deploy log" {
		t.Fatalf("pins = %v; want toolu_run3 hard with its reason, deploy log", got)
	}
}

// TestPurgeOfALiveSession runs `ctxkeep purge --current` from inside a
// running session: refused, because the client registered the session as
// open; with --force it goes ahead while the client keeps writing, and the
// session resumes whole afterwards, its large output stubbed.
func TestPurgeOfALiveSession(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	// No hooks installed: the large output stays in the transcript
	// (under the client's own 30,000-character cut).
	purge := claudecode.ShellQuote(ck.bin) + " purge --current"
	// The client writes a tool's result to the transcript on its own
	// schedule: the command waits (at most 30 s) until the large result is
	// there, so that the test depends on what purge does, not on when the
	// client flushes.
	waitForResult := `for i in $(seq 300); do grep -qs '"tool_use_id":"toolu_gen"' "$HOME"/.claude/projects/*/*.jsonl && break; sleep 0.1; done; `
	h.API.Script(
		fakeapi.Bash("toolu_gen", "seq 1 4000"),
		fakeapi.Bash("toolu_refused", waitForResult+purge),
		fakeapi.Bash("toolu_forced", purge+" --force"),
		fakeapi.Say("done"),
	)
	res := h.Run("generate, then purge", "--tools", "Bash")
	last := h.API.Last(fakeapi.Main)
	refused, _ := last.ToolResult("toolu_refused")
	if !regexp.MustCompile(`is live: Claude Code \(pid [0-9]+\) has this session open`).MatchString(refused) {
		t.Fatalf("purge of the live session was not refused:\n%s", refused)
	}
	forced, _ := last.ToolResult("toolu_forced")
	if !strings.Contains(forced, "purged ") || !strings.Contains(forced, "stored and stubbed: 1 ") {
		t.Fatalf("forced purge:\n%s", forced)
	}

	h.API.Script(fakeapi.Say("resumed"))
	before := len(h.API.RequestsOf(fakeapi.Main))
	h.Run("continue", "--resume", res.SessionID)
	first := h.API.RequestsOf(fakeapi.Main)[before]
	checkConversation(t, first)
	gen, _ := first.ToolResult("toolu_gen")
	if !stubRE.MatchString(gen) || first.Contains("\n3999\n") {
		t.Fatalf("the large output was not stubbed:\n%s", truncate(gen, 300))
	}
	if _, ok := first.ToolResult("toolu_forced"); !ok {
		t.Fatal("the lines the client wrote after the purge are lost")
	}
}
