package fakeapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

// userBody is a minimal Messages request with one user message.
func userBody(stream bool, text string) string {
	return fmt.Sprintf(`{"model":"claude-test","max_tokens":100,"stream":%t,
		"messages":[{"role":"user","content":[{"type":"text","text":%q}]}]}`, stream, text)
}

// send makes a request to the fake; headers are name, value pairs.
func send(t *testing.T, s *fakeapi.Server, method, path, body string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func postMessages(t *testing.T, s *fakeapi.Server, body string, headers ...string) *http.Response {
	t.Helper()
	return send(t, s, http.MethodPost, "/v1/messages?beta=true", body, headers...)
}

type sseEvent struct {
	Name string
	Data json.RawMessage
}

// readSSE parses a stream strictly: only "event:" and "data:" lines, each
// event closed by a blank line, and the data's "type" equal to the event name.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name == "" || cur.Data == nil {
				t.Fatalf("blank line closes an incomplete event %+v", cur)
			}
			checkEventType(t, cur)
			events = append(events, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = json.RawMessage(strings.TrimPrefix(line, "data: "))
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur.Name != "" || cur.Data != nil {
		t.Fatalf("stream ends inside an event: %+v", cur)
	}
	return events
}

func checkEventType(t *testing.T, e sseEvent) {
	t.Helper()
	var data struct{ Type string }
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatalf("event %s: data is not JSON: %v", e.Name, err)
	}
	if data.Type != e.Name {
		t.Errorf("event %s has data type %q", e.Name, data.Type)
	}
}

func decode[T any](t *testing.T, raw []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

func TestStreamFraming(t *testing.T) {
	s := fakeapi.Start(t)
	usage := fakeapi.Usage{InputTokens: 1, CacheCreationInputTokens: 2, CacheReadInputTokens: 3, OutputTokens: 4}
	s.Script(fakeapi.Reply{
		Content: []fakeapi.Block{
			fakeapi.Text("let me look"),
			fakeapi.ToolUse("toolu_1", "Bash", map[string]string{"command": "ls"}),
		},
		Usage: usage,
	})

	resp := postMessages(t, s, userBody(true, "hi"))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	events := readSSE(t, resp.Body)

	var names []string
	for _, e := range events {
		names = append(names, e.Name)
	}
	want := []string{
		"message_start",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("events = %v\nwant     %v", names, want)
	}

	start := decode[struct {
		Message struct {
			ID, Role, Model string
			Content         []any
		}
	}](t, events[0].Data)
	if start.Message.ID == "" || start.Message.Role != "assistant" || start.Message.Model != "claude-test" || len(start.Message.Content) != 0 {
		t.Errorf("message_start = %s", events[0].Data)
	}

	textStart := decode[struct {
		Index        int
		ContentBlock map[string]any `json:"content_block"`
	}](t, events[1].Data)
	if textStart.Index != 0 || textStart.ContentBlock["type"] != "text" || textStart.ContentBlock["text"] != "" {
		t.Errorf("text content_block_start = %s", events[1].Data)
	}
	textDelta := decode[struct{ Delta struct{ Type, Text string } }](t, events[2].Data)
	if textDelta.Delta.Type != "text_delta" || textDelta.Delta.Text != "let me look" {
		t.Errorf("text delta = %s", events[2].Data)
	}

	toolStart := decode[struct {
		Index        int
		ContentBlock struct {
			Type, ID, Name string
			Input          map[string]any
		} `json:"content_block"`
	}](t, events[4].Data)
	if toolStart.Index != 1 || toolStart.ContentBlock.Type != "tool_use" || toolStart.ContentBlock.ID != "toolu_1" ||
		toolStart.ContentBlock.Name != "Bash" || toolStart.ContentBlock.Input == nil || len(toolStart.ContentBlock.Input) != 0 {
		t.Errorf("tool_use content_block_start = %s", events[4].Data)
	}
	toolDelta := decode[struct {
		Delta struct {
			Type        string
			PartialJSON string `json:"partial_json"`
		}
	}](t, events[5].Data)
	if toolDelta.Delta.Type != "input_json_delta" || toolDelta.Delta.PartialJSON != `{"command":"ls"}` {
		t.Errorf("tool_use delta = %s", events[5].Data)
	}

	end := decode[struct {
		Delta struct {
			StopReason string `json:"stop_reason"`
		}
		Usage fakeapi.Usage
	}](t, events[7].Data)
	if end.Delta.StopReason != "tool_use" || end.Usage != usage {
		t.Errorf("message_delta = %s", events[7].Data)
	}
}

func TestNonStreamingReply(t *testing.T) {
	s := fakeapi.Start(t)
	s.Script(fakeapi.Say("plain").WithUsage(fakeapi.Usage{InputTokens: 7, OutputTokens: 3}))

	resp := postMessages(t, s, userBody(false, "hi"))
	body, _ := io.ReadAll(resp.Body)
	msg := decode[struct {
		Type, Role string
		Content    []struct{ Type, Text string }
		StopReason string `json:"stop_reason"`
		Usage      fakeapi.Usage
	}](t, body)
	if msg.Type != "message" || msg.Role != "assistant" || len(msg.Content) != 1 ||
		msg.Content[0].Text != "plain" || msg.StopReason != "end_turn" || msg.Usage.Total() != 10 {
		t.Errorf("reply = %s", body)
	}
}

// replyText sends a non-streaming request and returns the reply's text.
func replyText(t *testing.T, s *fakeapi.Server, body string, headers ...string) string {
	t.Helper()
	resp := postMessages(t, s, body, headers...)
	raw, _ := io.ReadAll(resp.Body)
	msg := decode[struct{ Content []struct{ Text string } }](t, raw)
	var texts []string
	for _, c := range msg.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "")
}

func TestScriptRunsInOrderThenDone(t *testing.T) {
	s := fakeapi.Start(t)
	s.Script(fakeapi.Say("one"), fakeapi.Say("two"))

	for _, want := range []string{"one", "two", "done", "done"} {
		if got := replyText(t, s, userBody(false, "next")); got != want {
			t.Errorf("reply = %q, want %q", got, want)
		}
	}
	if n := s.Remaining(); n != 0 {
		t.Errorf("Remaining = %d", n)
	}
	if n := len(s.RequestsOf(fakeapi.Main)); n != 4 {
		t.Errorf("%d main requests, want 4", n)
	}
}

func TestSummaryRequestIsAnsweredOutsideTheScript(t *testing.T) {
	s := fakeapi.Start(t)
	s.Script(fakeapi.Say("scripted"))
	s.SetSummary("custom summary")

	got := replyText(t, s, userBody(false, "Your task is to create a detailed summary of the conversation so far"))
	if !strings.Contains(got, "<summary>\ncustom summary\n</summary>") {
		t.Errorf("summary reply = %q", got)
	}
	if s.Remaining() != 1 {
		t.Error("the summary request used a scripted reply")
	}
	if r := s.Last(fakeapi.Summary); r == nil || r.Kind != fakeapi.Summary {
		t.Errorf("Last(Summary) = %+v", r)
	}
}

func TestSubagentRequestsDoNotUseTheScript(t *testing.T) {
	s := fakeapi.Start(t)
	s.Script(fakeapi.Say("scripted"))

	got := replyText(t, s, userBody(false, "subtask"), "X-Claude-Code-Agent-Id", "a123")
	if got != "done" {
		t.Errorf("subagent reply = %q", got)
	}
	r := s.Last(fakeapi.Subagent)
	if r == nil || r.AgentID != "a123" {
		t.Fatalf("Last(Subagent) = %+v", r)
	}
	if s.Remaining() != 1 {
		t.Error("the subagent request used a scripted reply")
	}
}

func TestRespondAnswersAfterTheScript(t *testing.T) {
	s := fakeapi.Start(t)
	s.Script(fakeapi.Say("scripted"))
	s.Respond(func(r *fakeapi.Request) fakeapi.Reply {
		// The callback may inspect the server: it runs without its lock.
		return fakeapi.Say(fmt.Sprintf("%s #%d: %s", r.Kind, len(s.Requests()), r.LastUserText()))
	})

	if got := replyText(t, s, userBody(false, "first")); got != "scripted" {
		t.Errorf("first reply = %q", got)
	}
	if got := replyText(t, s, userBody(false, "second")); got != "main #2: second" {
		t.Errorf("second reply = %q", got)
	}
	if got := replyText(t, s, userBody(false, "sub"), "X-Claude-Code-Agent-Id", "a1"); got != "subagent #3: sub" {
		t.Errorf("subagent reply = %q", got)
	}
}

func TestAPIErrorReply(t *testing.T) {
	s := fakeapi.Start(t)
	s.Script(fakeapi.Fail(http.StatusBadRequest, "invalid_request_error", "prompt is too long: 2 tokens > 1 maximum"))

	resp := postMessages(t, s, userBody(true, "hi"))
	body, _ := io.ReadAll(resp.Body)
	got := decode[struct {
		Type  string
		Error struct{ Type, Message string }
	}](t, body)
	if resp.StatusCode != http.StatusBadRequest || got.Type != "error" ||
		got.Error.Type != "invalid_request_error" || !strings.HasPrefix(got.Error.Message, "prompt is too long") {
		t.Errorf("status %d, body %s", resp.StatusCode, body)
	}
}

func TestOtherEndpoints(t *testing.T) {
	s := fakeapi.Start(t)

	resp := send(t, s, http.MethodPost, "/v1/messages/count_tokens", userBody(false, "count me"))
	body, _ := io.ReadAll(resp.Body)
	if count := decode[struct {
		InputTokens int `json:"input_tokens"`
	}](t, body); resp.StatusCode != http.StatusOK || count.InputTokens < 1 {
		t.Errorf("count_tokens: status %d, body %s", resp.StatusCode, body)
	}
	if resp := send(t, s, http.MethodHead, "/api/hello", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD /api/hello: status %d", resp.StatusCode)
	}
	if resp := send(t, s, http.MethodGet, "/v1/nowhere", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v1/nowhere: status %d", resp.StatusCode)
	}
	if resp := postMessages(t, s, "not json"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad body: status %d", resp.StatusCode)
	}

	var got []string
	for i, r := range s.Requests() {
		if r.Seq != i {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
		got = append(got, r.Kind.String()+" "+r.Method+" "+r.Path)
	}
	want := []string{
		"other POST /v1/messages/count_tokens",
		"other HEAD /api/hello",
		"other GET /v1/nowhere",
		"main POST /v1/messages",
	}
	if !slices.Equal(got, want) {
		t.Errorf("requests = %q\nwant       %q", got, want)
	}
}

// conversation is shaped like the client's requests: string and block
// content, system prompt blocks, role "system" entries inside messages, and
// tool results given as a string or as blocks.
const conversation = `{
  "model": "claude-opus-5-5", "max_tokens": 128000, "stream": true,
  "system": [{"type":"text","text":"You are a test."}],
  "tools": [{"name":"Bash","input_schema":{}}, {"name":"Read","input_schema":{}}],
  "messages": [
    {"role":"user","content":"first prompt"},
    {"role":"system","content":[{"type":"text","text":"SessionStart hook additional context: restored"}]},
    {"role":"assistant","content":[
      {"type":"text","text":"running"},
      {"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"echo a"}},
      {"type":"tool_use","id":"toolu_b","name":"Read","input":{"file_path":"/x"}}]},
    {"role":"user","content":[
      {"type":"tool_result","tool_use_id":"toolu_a","content":"a-output","is_error":false},
      {"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"b-line1"},{"type":"text","text":"b-line2"}]}]},
    {"role":"system","content":"PostToolUse:Bash hook additional context: noted"},
    {"role":"user","content":[{"type":"text","text":"second prompt"}]}
  ]
}`

func TestRequestHelpers(t *testing.T) {
	s := fakeapi.Start(t)
	postMessages(t, s, conversation, "X-Claude-Code-Session-Id", "sess-1")
	r := s.Last(fakeapi.Main)
	if r == nil {
		t.Fatal("no main request recorded")
	}

	if r.SessionID != "sess-1" || r.RawQuery != "beta=true" || r.JSON["model"] != "claude-opus-5-5" {
		t.Errorf("SessionID %q, RawQuery %q, JSON model %v", r.SessionID, r.RawQuery, r.JSON["model"])
	}
	if got, ok := r.ToolResult("toolu_a"); !ok || got != "a-output" {
		t.Errorf(`ToolResult("toolu_a") = %q, %v`, got, ok)
	}
	if got, ok := r.ToolResult("toolu_b"); !ok || got != "b-line1\nb-line2" {
		t.Errorf(`ToolResult("toolu_b") = %q, %v`, got, ok)
	}
	if _, ok := r.ToolResult("toolu_missing"); ok {
		t.Error(`ToolResult("toolu_missing") found a result`)
	}
	wantSystem := []string{"SessionStart hook additional context: restored", "PostToolUse:Bash hook additional context: noted"}
	if got := r.SystemMessages(); !slices.Equal(got, wantSystem) {
		t.Errorf("SystemMessages = %q", got)
	}
	if got := r.UserTexts(); !slices.Equal(got, []string{"first prompt", "second prompt"}) {
		t.Errorf("UserTexts = %q", got)
	}
	if got := r.LastUserText(); got != "second prompt" {
		t.Errorf("LastUserText = %q", got)
	}
	if got := r.SystemPrompt(); got != "You are a test." {
		t.Errorf("SystemPrompt = %q", got)
	}
	if got := r.ToolNames(); !slices.Equal(got, []string{"Bash", "Read"}) {
		t.Errorf("ToolNames = %q", got)
	}
	for _, seen := range []string{"b-line2", "restored", "running", "first prompt"} {
		if !r.Contains(seen) {
			t.Errorf("Contains(%q) = false", seen)
		}
	}
	if r.Contains("You are a test.") {
		t.Error("Contains searched the system prompt")
	}
}

func TestConcurrentRequestsAreAllRecorded(t *testing.T) {
	s := fakeapi.Start(t)
	const n = 20
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(userBody(true, "hi")))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	reqs := s.Requests()
	if len(reqs) != n {
		t.Fatalf("%d requests recorded, want %d", len(reqs), n)
	}
	for i, r := range reqs {
		if r.Seq != i {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
	}
}
