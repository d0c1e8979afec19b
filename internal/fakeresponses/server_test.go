package fakeresponses

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// post sends a /responses request and returns the SSE events' data, by type.
func post(t *testing.T, s *Server, body string, header map[string]string) (types []string, data []map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/responses", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if kind, ok := strings.CutPrefix(line, "event: "); ok {
			types = append(types, kind)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("data %q: %v", d, err)
			}
			data = append(data, m)
		}
	}
	return types, data
}

const turn = `{"model":"gpt-5.5","stream":true,"prompt_cache_key":"s1","input":[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"ctx from a hook"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"run it"}]},
 {"type":"function_call","call_id":"call_1","name":"exec_command","arguments":"{}"},
 {"type":"function_call_output","call_id":"call_1","output":"Process exited with code 0\nhello"},
 {"type":"custom_tool_call_output","call_id":"call_2","output":[{"type":"input_text","text":"patched"}]}]}`

// A scripted function call streams as Codex parses it: created, the item
// added and done, then completed with the usage; the request is recorded
// with its input.
func TestStreamsScriptedCall(t *testing.T) {
	s := Start(t)
	s.Script(Exec("call_9", "ls").WithUsage(Usage{InputTokens: 8000, OutputTokens: 20}))
	types, data := post(t, s, turn, nil)
	want := []string{"response.created", "response.output_item.added", "response.output_item.done", "response.completed"}
	if strings.Join(types, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v, want %v", types, want)
	}
	item := data[2]["item"].(map[string]any)
	if item["type"] != "function_call" || item["call_id"] != "call_9" || item["name"] != "exec_command" || !strings.Contains(item["arguments"].(string), `"cmd":"ls"`) {
		t.Errorf("item %v", item)
	}
	usage := data[3]["response"].(map[string]any)["usage"].(map[string]any)
	if usage["input_tokens"] != 8000.0 || usage["total_tokens"] != 8020.0 {
		t.Errorf("usage %v", usage)
	}
	r := s.Last(Main)
	if r == nil || r.Params.PromptCacheKey != "s1" {
		t.Fatalf("recorded %v", r)
	}
	if out, ok := r.ToolOutput("call_1"); !ok || out != "Process exited with code 0\nhello" {
		t.Errorf("ToolOutput(call_1) = %q, %v", out, ok)
	}
	if out, ok := r.ToolOutput("call_2"); !ok || out != "patched" {
		t.Errorf("ToolOutput(call_2) = %q, %v", out, ok)
	}
	if got := r.Messages("developer"); len(got) != 1 || got[0] != "ctx from a hook" {
		t.Errorf("developer messages %q", got)
	}
	if !r.Contains("hello") || r.Contains("nowhere") {
		t.Error("Contains")
	}
}

// A compaction request is answered with the summary, whatever the script
// holds, and the script is left for the turn's next request.
func TestAnswersCompaction(t *testing.T) {
	s := Start(t)
	s.SetSummary("SUMMARY-42")
	s.Script(Say("scripted"))
	_, data := post(t, s, turn, map[string]string{"X-Codex-Turn-Metadata": `{"request_kind":"compaction"}`})
	if text := said(data); text != "SUMMARY-42" {
		t.Errorf("compaction answered %v", text)
	}
	if s.Last(Compaction) == nil || s.Remaining() != 1 {
		t.Errorf("compaction not classified, or it used the script (%d left)", s.Remaining())
	}
	_, data = post(t, s, turn, nil)
	if text := said(data); text != "scripted" {
		t.Errorf("turn answered %v", text)
	}
}

// said is the text of the message item of a stream.
func said(data []map[string]any) any {
	for _, d := range data {
		if d["type"] == "response.output_item.done" {
			return d["item"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
		}
	}
	return nil
}
