package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/fastjson"
)

// Shell is the tool_name Codex gives its shell tools (exec_command,
// shell) in hook payloads, as Claude Code names its own.
const Shell = "Bash"

// Output is a tool's output as a PostToolUse payload carries it.
type Output struct {
	Text string
	// Cut is set when Codex cut the output before the hook saw it: a
	// shell output over the call's max_output_tokens (10,000 by default)
	// reaches hooks, like the model, as its head and tail under Codex's own
	// "Warning: truncated output" line. The whole output is nowhere then
	// (the rollout keeps 64 KiB of it): only the wrapper, which runs the
	// command through ctxkeep, keeps it.
	Cut bool
}

// ErrNotText means the tool's output is not text ctxkeep can stand in for.
var ErrNotText = errors.New("tool output is not text")

// cutMarker opens a shell output Codex cut (codex-hooks.md §6).
const cutMarker = "Warning: truncated output (original token count: "

// ReadOutput reads a PostToolUse tool_response: a plain string for the
// shell, apply_patch and most tools (a shell's stdout and stderr merged,
// without the exit status: codex-hooks.md §5), an MCP result object
// {"content": [...], "isError"} for MCP tools.
func ReadOutput(tool string, resp json.RawMessage) (Output, error) {
	resp = bytes.TrimSpace(resp)
	if len(resp) == 0 {
		return Output{}, ErrNotText
	}
	switch resp[0] {
	case '"':
		var s string
		if err := fastjson.Unmarshal(resp, &s); err != nil {
			return Output{}, ErrNotText
		}
		return Output{Text: s, Cut: tool == Shell && strings.HasPrefix(s, cutMarker)}, nil
	case '{':
		return readMCP(resp)
	}
	return Output{}, ErrNotText
}

// readMCP joins the text blocks of an MCP result; a result with no text
// (an image) is not text.
func readMCP(resp json.RawMessage) (Output, error) {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := fastjson.Unmarshal(resp, &r); err != nil {
		return Output{}, ErrNotText
	}
	var texts []string
	for _, c := range r.Content {
		if c.Type != "text" {
			return Output{}, ErrNotText // an image or a resource: left as it is
		}
		texts = append(texts, c.Text)
	}
	if len(texts) == 0 {
		return Output{}, ErrNotText
	}
	return Output{Text: strings.Join(texts, "\n")}, nil
}
