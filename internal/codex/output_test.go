package codex

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

func TestReadOutput(t *testing.T) {
	data, err := os.ReadFile("testdata/PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	var real struct {
		Stdin struct {
			ToolName     string          `json:"tool_name"`
			ToolResponse json.RawMessage `json:"tool_response"`
		} `json:"stdin"`
	}
	json.Unmarshal(data, &real)
	out, err := ReadOutput(real.Stdin.ToolName, real.Stdin.ToolResponse)
	if err != nil || out.Cut || out.Text[:8] != "hello\n1\n" {
		t.Errorf("a real shell output: %+v, %v", out, err)
	}
	for _, c := range []struct {
		tool, resp string
		text       string
		cut        bool
		err        error
	}{
		{"mcp__demo__echo", `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":false}`, "a\nb", false, nil},
		{"mcp__demo__img", `{"content":[{"type":"image","data":"…"}]}`, "", false, ErrNotText},
		{"Bash", `"Warning: truncated output (original token count: 87226)\nTotal output lines: 60001\n\n1\n…"`, "", true, nil},
		{"apply_patch", `"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess."`, "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.", false, nil},
		{"Bash", `null`, "", false, ErrNotText},
	} {
		out, err := ReadOutput(c.tool, json.RawMessage(c.resp))
		if !errors.Is(err, c.err) || out.Cut != c.cut || (c.text != "" && out.Text != c.text) {
			t.Errorf("%s %s: %+v, %v", c.tool, c.resp, out, err)
		}
	}
}
