package gemini

import (
	"errors"
	"testing"
)

func TestReadOutputShapes(t *testing.T) {
	for _, c := range []struct {
		tool, resp, text string
		exit             int
		err              error
	}{
		{ReadFile, `{"llmContent": "package main\n", "returnDisplay": ""}`, "package main\n", -1, nil},
		{Grep, `{"llmContent": "Found 2 matches for pattern \"x\"\n---\nFile: a.go\nL1: x\n", "returnDisplay": "Found 2 matches"}`, "Found 2 matches for pattern \"x\"\n---\nFile: a.go\nL1: x\n", -1, nil},
		{ReadMany, `{"llmContent": ["--- a.go ---\n\npackage a\n", "--- b.go ---\n\npackage b\n"], "returnDisplay": "read 2 files"}`, "--- a.go ---\n\npackage a\n\n--- b.go ---\n\npackage b\n", -1, nil},
		{"mcp_docs_search", `{"llmContent": [{"text": "first"}, {"text": "second"}], "returnDisplay": "…"}`, "first\nsecond", -1, nil},
		{WebFetch, `{"llmContent": {"text": "page text"}, "returnDisplay": "fetched"}`, "page text", -1, nil},
		{ReadFile, `{"llmContent": {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}, "returnDisplay": "image"}`, "", 0, ErrNotText},
		{"mcp_img", `{"llmContent": [{"text": "a"}, {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}`, "", 0, ErrNotText},
		{Shell, `{"llmContent": "<untrusted_context>\nOutput: done\nExit Code: 4\nProcess Group PGID: 7\n</untrusted_context>", "returnDisplay": "done"}`, "done", 4, nil},
		{Glob, `{"llmContent": "", "returnDisplay": ""}`, "", 0, ErrNotText},
	} {
		out, err := ReadOutput(c.tool, []byte(c.resp))
		if !errors.Is(err, c.err) || err == nil && (out.Text != c.text || out.Exit != c.exit) {
			t.Errorf("%s %s: %+v %v", c.tool, c.resp, out, err)
		}
	}
}
