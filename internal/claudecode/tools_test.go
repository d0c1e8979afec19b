package claudecode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realResponse loads tool_response from a payload captured from 2.1.330.
func realResponse(t *testing.T, name string) (string, json.RawMessage) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../hook/testdata/events/real", name))
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		ToolName     string          `json:"tool_name"`
		ToolResponse json.RawMessage `json:"tool_response"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return ev.ToolName, ev.ToolResponse
}

func TestReadOutputOfRealPayloads(t *testing.T) {
	for file, want := range map[string]string{
		"PostToolUse.Bash.json": "hello",
		"PostToolUse.Read.json": "package main\n\nfunc main() {}\n",
		"PostToolUse.Grep.json": "main.go:1:package main\nmain.go:3:func main() {}",
		"PostToolUse.Glob.json": "main.go",
	} {
		tool, resp := realResponse(t, file)
		out, err := ReadOutput(tool, resp)
		if err != nil || out.Text != want || out.PersistedPath != "" {
			t.Errorf("%s: %+v, %v; want %q", file, out, err, want)
		}
	}
	tool, resp := realResponse(t, "PostToolUse.Bash.persisted.json")
	out, err := ReadOutput(tool, resp)
	if err != nil || len(out.Text) != 30000 || !strings.HasSuffix(out.PersistedPath, "/tool-results/b29ga3wbw.txt") {
		t.Errorf("persisted: %d chars, %q, %v", len(out.Text), out.PersistedPath, err)
	}
}

func TestReadOutputShapes(t *testing.T) {
	cases := []struct {
		tool, resp, want string
	}{
		{"Bash", `{"stdout":"out","stderr":"warn","interrupted":false,"isImage":false}`, "out\nwarn"},
		{"Grep", `{"mode":"files_with_matches","filenames":["a","b"],"numFiles":2}`, "a\nb"},
		{"WebFetch", `{"bytes":10,"code":200,"codeText":"OK","result":"page text","durationMs":1,"url":"http://x"}`, "page text"},
		{"WebSearch", `{"query":"q","results":["commentary",{"tool_use_id":"t","content":[{"title":"T","url":"http://u","snippet":"S"}]}],"durationSeconds":1}`, "commentary\nT\nhttp://u\nS\n"},
		{"Agent", `{"status":"completed","agentId":"a","content":[{"type":"text","text":"report"}],"prompt":"p"}`, "report"},
		{"mcp__srv__tool", `[{"type":"text","text":"one"},{"type":"text","text":"two"}]`, "one\ntwo"},
		{"mcp__srv__tool", `"plain"`, "plain"},
	}
	for _, tc := range cases {
		out, err := ReadOutput(tc.tool, json.RawMessage(tc.resp))
		if err != nil || out.Text != tc.want {
			t.Errorf("%s %s: %q, %v; want %q", tc.tool, tc.resp, out.Text, err, tc.want)
		}
	}
	for _, tc := range []struct{ tool, resp string }{
		{"Bash", `{"stdout":"iVBOR","isImage":true}`},
		{"Bash", `{"stdout":"","backgroundTaskId":"b1"}`},
		{"Read", `{"type":"image","file":{"base64":"x","type":"image/png","originalSize":1}}`},
		{"Agent", `{"status":"async_launched","agentId":"a","description":"d","prompt":"p","outputFile":"/x"}`},
		{"mcp__srv__tool", `[{"type":"image","data":"x","mimeType":"image/png"}]`},
		{"Edit", `{"filePath":"/x","oldString":"a","newString":"b","originalFile":"big"}`},
		{"Bash", `not json`},
	} {
		if _, err := ReadOutput(tc.tool, json.RawMessage(tc.resp)); !errors.Is(err, ErrNotText) {
			t.Errorf("%s %s: err = %v, want ErrNotText", tc.tool, tc.resp, err)
		}
	}
}

// The replacement must have the tool's own shape, or the client keeps the
// original (claude-code-hooks.md §4.1); the real-client tests check the
// client accepts them, this checks the fields.
func TestReplaceOutputShapes(t *testing.T) {
	cases := []struct {
		file string
		want string
	}{
		{"PostToolUse.Bash.json", `{"stdout":"VIEW","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`},
		{"PostToolUse.Read.json", `{"type":"text","file":{"filePath":"/home/u/project/main.go","content":"VIEW","numLines":1,"startLine":1,"totalLines":4}}`},
		{"PostToolUse.Grep.json", `{"mode":"content","numFiles":0,"filenames":[],"content":"VIEW","numLines":1}`},
		{"PostToolUse.Glob.json", `{"filenames":["VIEW"],"durationMs":6,"numFiles":1,"truncated":false}`},
	}
	for _, tc := range cases {
		tool, resp := realResponse(t, tc.file)
		r, err := replace(tool, resp, "VIEW")
		if err != nil || string(r.ToolOutput) != tc.want || r.MCPOutput != nil {
			t.Errorf("%s:\n got %s, %v\nwant %s", tc.file, r.ToolOutput, err, tc.want)
		}
	}
	r, err := replace("mcp__srv__tool", json.RawMessage(`[{"type":"text","text":"big"}]`), "VIEW")
	if err != nil || string(r.MCPOutput) != `[{"type":"text","text":"VIEW"}]` || r.ToolOutput != nil {
		t.Errorf("mcp: %s %s %v", r.MCPOutput, r.ToolOutput, err)
	}
	r, err = replace("WebFetch", json.RawMessage(`{"bytes":10,"code":200,"result":"big","url":"http://x"}`), "VIEW")
	if err != nil || !strings.Contains(string(r.ToolOutput), `"result":"VIEW"`) || !strings.Contains(string(r.ToolOutput), `"code":200`) {
		t.Errorf("webfetch: %s %v", r.ToolOutput, err)
	}
	r, err = replace("Agent", json.RawMessage(`{"status":"completed","agentId":"a","content":[{"type":"text","text":"big"}],"totalTokens":5}`), "VIEW")
	if err != nil || !strings.Contains(string(r.ToolOutput), `"content":[{"type":"text","text":"VIEW"}]`) || !strings.Contains(string(r.ToolOutput), `"totalTokens":5`) {
		t.Errorf("agent: %s %v", r.ToolOutput, err)
	}
}

func TestSessionDir(t *testing.T) {
	good := "/home/u/.claude/projects/-home-u-p/abc.jsonl"
	if d, err := SessionDir(good, "abc"); err != nil || d != "/home/u/.claude/projects/-home-u-p/abc" {
		t.Errorf("SessionDir = %q, %v", d, err)
	}
	for _, bad := range []string{"relative/abc.jsonl", "/x/../abc.jsonl", "/x/other.jsonl", "/x/abc.json", ""} {
		if _, err := SessionDir(bad, "abc"); err == nil {
			t.Errorf("SessionDir(%q) accepted", bad)
		}
	}
	dir := "/s/tool-results"
	for path, want := range map[string]bool{"/s/tool-results/b1.txt": true, "/s/tool-results/../x": false, "/s/tool-results": false, "/etc/passwd": false} {
		if got := Within(path, dir); got != want {
			t.Errorf("Within(%q) = %v", path, got)
		}
	}
}

func TestDescribeInput(t *testing.T) {
	for tool, tc := range map[string]struct{ in, want string }{
		"Bash":      {`{"command":"go test ./..."}`, "go test ./..."},
		"Read":      {`{"file_path":"/a.go","offset":10,"limit":5}`, "/a.go (offset 10, limit 5)"},
		"Grep":      {`{"pattern":"TODO","path":"src","glob":"*.ts"}`, `"TODO" in src (*.ts)`},
		"WebFetch":  {`{"url":"http://x","prompt":"p"}`, "http://x"},
		"mcp__a__b": {`{"q":1}`, `{"q":1}`},
		"Agent":     {`{"description":"look around","prompt":"long"}`, "look around"},
		"WebSearch": {`{"query":"golang"}`, "golang"},
		"Glob":      {`{"pattern":"**/*.go"}`, `"**/*.go"`},
	} {
		raw := json.RawMessage(tc.in)
		if got := ParseInput(raw).Describe(tool, raw); got != tc.want {
			t.Errorf("%s: %q, want %q", tool, got, tc.want)
		}
	}
}

func replace(tool string, resp json.RawMessage, view string) (Replacement, error) {
	out, err := ReadOutput(tool, resp)
	if err != nil {
		return Replacement{}, err
	}
	return out.Replace(view)
}
