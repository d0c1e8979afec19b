package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestParseLineTypes(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(r Record) bool
	}{
		{"user prompt", `{"type":"user","uuid":"u","parentUuid":"p","isSidechain":false,"sessionId":"s","cwd":"/p","version":"2.1.39","gitBranch":"main","timestamp":"2026-02-11T20:31:53.375Z","message":{"role":"user","content":"hi"}}`,
			func(r Record) bool {
				return r.Type == TypeUser && r.UUID == "u" && r.ParentUUID == "p" && r.SessionID == "s" && r.Cwd == "/p" && r.Version == "2.1.39" && r.GitBranch == "main" &&
					r.Timestamp.Equal(time.Date(2026, 2, 11, 20, 31, 53, 375e6, time.UTC)) && r.Message.Content.String == "hi" && r.Message.Content.Blocks == nil && r.MainThread()
			}},
		{"prompt with image", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","source":{"type":"base64","data":"AAAA"}}]}}`,
			func(r Record) bool {
				b := r.Message.Content.Blocks
				return len(b) == 2 && b[0].Text == "see" && b[1].Type == BlockImage && r.Message.Content.Text() == "see"
			}},
		{"assistant tool_use", `{"type":"assistant","requestId":"req","message":{"id":"msg","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu","name":"Bash","input":{"command":"ls"}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"cache_creation_input_tokens":8037,"cache_read_input_tokens":17842,"cache_creation":{"ephemeral_1h_input_tokens":8037},"output_tokens":10,"service_tier":"standard"}}}`,
			func(r Record) bool {
				m, b := r.Message, r.Message.Content.Blocks[0]
				return r.RequestID == "req" && m.ID == "msg" && m.Model == "claude-opus-4-6" && m.StopReason == "tool_use" &&
					m.Usage == Usage{3, 8037, 17842, 10} && m.Usage.Context() == 25882 &&
					b.Type == BlockToolUse && b.ID == "toolu" && b.Name == "Bash" && string(b.Input) == `{"command":"ls"}`
			}},
		{"thinking", `{"type":"assistant","message":{"id":"m","content":[{"type":"thinking","thinking":"hmm","signature":"x"},{"type":"redacted_thinking","data":"y"}]}}`,
			func(r Record) bool {
				b := r.Message.Content.Blocks
				return b[0].Thinking == "hmm" && b[1].Type == BlockRedactedThinking
			}},
		{"tool_result with blocks", `{"type":"user","sourceToolAssistantUUID":"a","toolUseResult":"Error: no","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu","is_error":true,"content":[{"type":"text","text":"one"},{"type":"image","source":{}},{"type":"text","text":"two"}]}]}}`,
			func(r Record) bool {
				b := r.Message.Content.Blocks[0]
				return b.ToolUseID == "toolu" && b.IsError && b.Content.Text() == "one\ntwo" && string(r.ToolUseResult) == `"Error: no"` && r.SourceToolAssistantUUID == "a"
			}},
		{"compact boundary", `{"type":"system","subtype":"compact_boundary","parentUuid":null,"logicalParentUuid":"l","content":"Conversation compacted","level":"info","compactMetadata":{"trigger":"auto","preTokens":990521,"postTokens":2623,"preservedSegment":{"headUuid":"h","anchorUuid":"a","tailUuid":"t"}}}`,
			func(r Record) bool {
				m := r.CompactMetadata
				return r.IsCompactBoundary() && r.LogicalParentUUID == "l" && r.ParentUUID == "" && r.Content == "Conversation compacted" && r.Level == "info" &&
					m.Trigger == "auto" && m.PreTokens == 990521 && m.PostTokens == 2623 && *m.PreservedSegment == Segment{"h", "a", "t"}
			}},
		{"compact summary", `{"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued"}}`,
			func(r Record) bool { return r.IsCompactSummary && r.IsVisibleInTranscriptOnly }},
		{"turn duration", `{"type":"system","subtype":"turn_duration","durationMs":4000,"isMeta":true}`,
			func(r Record) bool { return r.Subtype == SubtypeTurnDuration && r.DurationMS == 4000 && r.IsMeta }},
		{"stop hook summary", `{"type":"system","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[{"command":"x"}],"hookErrors":[],"preventedContinuation":false,"toolUseID":"t"}`,
			func(r Record) bool { return r.Subtype == SubtypeStopHookSummary && r.ToolUseID == "t" }},
		{"api error", `{"type":"system","subtype":"api_error","level":"error","error":{"cause":{}},"retryInMs":617.7,"retryAttempt":1,"maxRetries":10}`,
			func(r Record) bool { return r.Subtype == SubtypeAPIError && r.Level == "error" }},
		{"local command", `{"type":"system","subtype":"local_command","content":"<local-command-stdout>ok</local-command-stdout>"}`,
			func(r Record) bool { return r.Content == "<local-command-stdout>ok</local-command-stdout>" }},
		{"attachment", `{"type":"attachment","attachment":{"type":"date","date":"2026-11-21"},"rendered":[{"content":"Today"}]}`,
			func(r Record) bool { return r.Attachment.Type == "date" }},
		{"progress", `{"type":"progress","data":{"type":"agent_progress","agentId":"a881341","message":{"type":"user"}},"toolUseID":"agent_msg","parentToolUseID":"toolu"}`,
			func(r Record) bool {
				return r.Data.Type == "agent_progress" && r.Data.AgentID == "a881341" && r.ToolUseID == "agent_msg" && r.ParentToolUseID == "toolu"
			}},
		{"old summary", `{"type":"summary","summary":"Debugging","leafUuid":"l"}`,
			func(r Record) bool { return r.Summary == "Debugging" && r.LeafUUID == "l" && r.MainThread() }},
		{"file history snapshot", `{"type":"file-history-snapshot","messageId":"m","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":true}`,
			func(r Record) bool { return r.MessageID == "m" && r.IsSnapshotUpdate }},
		{"queue operation", `{"type":"queue-operation","operation":"enqueue","content":"/mcp","timestamp":"2026-02-10T21:54:53.186Z"}`,
			func(r Record) bool { return r.Operation == "enqueue" && r.Content == "/mcp" && !r.Timestamp.IsZero() }},
		{"last prompt", `{"type":"last-prompt","lastPrompt":"fix it","leafUuid":"l"}`,
			func(r Record) bool { return r.LastPrompt == "fix it" && r.LeafUUID == "l" && r.Known() }},
		{"subagent line", `{"type":"assistant","isSidechain":true,"agentId":"a7be2f0","message":{"id":"m"}}`,
			func(r Record) bool { return !r.MainThread() && r.AgentID == "a7be2f0" }},
		{"unknown type", `{"type":"cost-state","totalCostUSD":1.5}`,
			func(r Record) bool { return r.Type == "cost-state" && !r.Known() }},
		{"no type", `{}`, func(r Record) bool { return r.Type == "" && !r.Known() }},
		{"bad timestamp", `{"type":"user","timestamp":"yesterday","uuid":"u"}`,
			func(r Record) bool { return r.Timestamp.IsZero() && r.UUID == "u" }},
		{"content neither string nor array", `{"type":"user","message":{"content":42}}`,
			func(r Record) bool { return r.Message.Content.String == "" && r.Message.Content.Blocks == nil }},
		{"odd block", `{"type":"user","uuid":"u","message":{"content":["str",{"type":"text","text":5},{"type":"text","text":"ok"}]}}`,
			func(r Record) bool { return r.UUID == "u" && r.Message.Content.Text() == "ok" }},
		{"byte order mark", "\xef\xbb\xbf" + `{"type":"user","uuid":"u"}`,
			func(r Record) bool { return r.UUID == "u" }},
		{"carriage return", `{"type":"user","uuid":"u"}` + "\r",
			func(r Record) bool { return r.UUID == "u" }},
		{"invalid UTF-8", "{\"type\":\"user\",\"uuid\":\"u\",\"message\":{\"content\":\"caf\xe9 \xff\"}}",
			func(r Record) bool { return r.Message.Content.String == "caf\ufffd \ufffd" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseLine([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(r.Raw, []byte(tt.line)) {
				t.Errorf("Raw = %q, want the line", r.Raw)
			}
			if !tt.check(r) {
				t.Errorf("got %+v", r)
			}
		})
	}
}

func TestParseLineErrors(t *testing.T) {
	for _, line := range []string{``, ` `, `garbage`, `{"type":"user"`, `{"type":"user"}}`, `[1,2]`, `"user"`, `null`, `42`, "\xef\xbb\xbf"} {
		r, err := ParseLine([]byte(line))
		if err == nil {
			t.Errorf("%q: no error", line)
		}
		if r.Raw != nil || r.Type != "" {
			t.Errorf("%q: record %+v with the error", line, r)
		}
	}
	if _, err := ParseLine([]byte(`[]`)); !errors.Is(err, ErrNotObject) {
		t.Errorf("an array: %v, want ErrNotObject", err)
	}
	if _, err := ParseLine([]byte(`{`)); !isSyntax(err) {
		t.Errorf("a torn object: %v, want a syntax error", err)
	}
}

func isSyntax(err error) bool {
	_, ok := errors.AsType[*json.SyntaxError](err)
	return ok
}

func TestParseLineFieldError(t *testing.T) {
	line := `{"type":"user","isMeta":"yes","uuid":"u","message":{"role":"user","content":"hi"}}`
	r, err := ParseLine([]byte(line))
	fe, ok := errors.AsType[*FieldError](err)
	if !ok {
		t.Fatalf("err = %v, want a *FieldError", err)
	}
	if _, ok := errors.AsType[*json.UnmarshalTypeError](fe); !ok {
		t.Errorf("%v does not wrap the decoder's error", fe)
	}
	if r.Type != TypeUser || r.UUID == "" || r.IsMeta || r.Message.Content.String != "hi" || string(r.Raw) != line {
		t.Errorf("record = %+v, want it whole but for isMeta", r)
	}
}
