package purge

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ctxkeep/ctxkeep/internal/rawjson"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// MissingResultText is the content of the result purge adds to a tool call
// that has none.
const MissingResultText = "[ctxkeep purge] No result was recorded for this tool call (interrupted, or lost from the transcript); it may not have run."

// Render returns the purged transcript: unchanged lines byte for byte,
// changed ones re-encoded with every field they had, synthetic results
// after their calls.
func (p *Plan) Render() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(p.t.Data))
	for i := range p.t.Lines {
		l := &p.t.Lines[i]
		if !p.drop[i] {
			line := l.Raw
			if p.changed(i) {
				var err error
				if line, err = p.rewrite(i); err != nil {
					return nil, fmt.Errorf("line %d: %w", i+1, err)
				}
			}
			b.Write(line)
			if !p.keepRaw[i] {
				b.WriteByte('\n')
			}
		}
		for _, ins := range p.inserts[i] {
			b.Write(ins)
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// rewrite re-encodes line i with its new parent and content. A byte order
// mark or a '\r' around the object stays where it was.
func (p *Plan) rewrite(i int) ([]byte, error) {
	raw := p.t.Lines[i].Raw
	start := bytes.IndexByte(raw, '{')
	end := bytes.LastIndexByte(raw, '}') + 1
	if start < 0 || end <= start {
		return nil, errNotObject
	}
	body, err := edit(raw[start:end], func(o rawjson.Object) (rawjson.Object, error) {
		if parent, ok := p.parent[i]; ok {
			o = o.Set("parentUuid", nullable(parent))
		}
		if len(p.blocks[i]) == 0 {
			return o, nil
		}
		return p.rewriteContent(i, o)
	})
	if err != nil {
		return nil, err
	}
	return append(append(append([]byte{}, raw[:start]...), body...), raw[end:]...), nil
}

func nullable(uuid string) json.RawMessage {
	if uuid == "" {
		return json.RawMessage("null")
	}
	return rawjson.Encode(uuid)
}

// rewriteContent applies the block actions of line i to its message's
// content, and gives a line whose results all became stubs the stubs as
// its toolUseResult too (the client accepts a string there, and keeps the
// structured output there otherwise: as large as the result).
func (p *Plan) rewriteContent(i int, o rawjson.Object) (rawjson.Object, error) {
	msg, err := rawjson.ParseObject(o.Get("message"))
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	blocks, err := rawjson.ParseArray(msg.Get("content"))
	if err != nil {
		return nil, fmt.Errorf("message.content: %w", err)
	}
	var kept []json.RawMessage
	var stubs []string
	results := 0
	for j, blk := range blocks {
		a := p.blocks[i][j]
		if isResult(blk) {
			results++
		}
		switch {
		case a.remove:
			continue
		case a.stub != nil:
			text := a.stub.Text()
			if blk, err = edit(blk, func(b rawjson.Object) (rawjson.Object, error) { return b.Set("content", rawjson.Encode(text)), nil }); err != nil {
				return nil, err
			}
			stubs = append(stubs, text)
		}
		kept = append(kept, blk)
	}
	if len(kept) == 0 {
		kept = append(kept, rawjson.Encode(map[string]string{"type": "text",
			"text": "[ctxkeep purge] A tool result whose call is no longer in the conversation was removed here."}))
	}
	o = o.Set("message", msg.Set("content", rawjson.MarshalArray(kept)).Marshal())
	if len(stubs) > 0 && len(stubs) == results && o.Get("toolUseResult") != nil {
		o = o.Set("toolUseResult", rawjson.Encode(joinStubs(stubs)))
	}
	return o, nil
}

func isResult(blk json.RawMessage) bool {
	var b struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(blk, &b) == nil && b.Type == transcript.BlockToolResult
}

func joinStubs(stubs []string) string {
	var b bytes.Buffer
	for i, s := range stubs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	return b.String()
}

// syntheticResult is a user line answering call with an error result, in
// the shape the client writes results: the child of the line holding the
// tool_use, with that line's session fields. The client pairs it with the
// call and keeps the response it belongs to.
func syntheticResult(session string, use *transcript.Record, call transcript.ToolCall) []byte {
	type result struct {
		ToolUseID string `json:"tool_use_id"`
		Type      string `json:"type"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error"`
	}
	type message struct {
		Role    string   `json:"role"`
		Content []result `json:"content"`
	}
	line := struct {
		ParentUUID              string          `json:"parentUuid"`
		IsSidechain             bool            `json:"isSidechain"`
		UserType                string          `json:"userType,omitempty"`
		Cwd                     string          `json:"cwd,omitempty"`
		SessionID               string          `json:"sessionId,omitempty"`
		Version                 string          `json:"version,omitempty"`
		GitBranch               string          `json:"gitBranch,omitempty"`
		AgentID                 string          `json:"agentId,omitempty"`
		Type                    string          `json:"type"`
		Message                 message         `json:"message"`
		UUID                    string          `json:"uuid"`
		Timestamp               json.RawMessage `json:"timestamp,omitempty"`
		ToolUseResult           string          `json:"toolUseResult"`
		SourceToolAssistantUUID string          `json:"sourceToolAssistantUUID"`
	}{
		ParentUUID: use.UUID, IsSidechain: use.IsSidechain, UserType: stringField(use.Raw, "userType"), Cwd: use.Cwd,
		SessionID: use.SessionID, Version: use.Version, GitBranch: use.GitBranch, AgentID: use.AgentID,
		Type: transcript.TypeUser, UUID: derivedUUID(session, call.ID), Timestamp: rawField(use.Raw, "timestamp"),
		ToolUseResult: "Error: " + MissingResultText, SourceToolAssistantUUID: use.UUID,
		Message: message{Role: "user", Content: []result{{ToolUseID: call.ID, Type: transcript.BlockToolResult,
			Content: MissingResultText, IsError: true}}},
	}
	return rawjson.Encode(line)
}

func rawField(raw []byte, key string) json.RawMessage {
	o, err := rawjson.ParseObject(bytes.TrimSpace(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))))
	if err != nil {
		return nil
	}
	return o.Get(key)
}

func stringField(raw []byte, key string) string {
	var s string
	json.Unmarshal(rawField(raw, key), &s)
	return s
}

// derivedUUID names the record purge adds for a tool call: shaped like the
// client's (version 4) UUIDs, and the same on every run, so that a dry run
// shows what a run writes.
func derivedUUID(session, toolUseID string) string {
	b := sha256.Sum256([]byte("ctxkeep purge\x00" + session + "\x00" + toolUseID))
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// sortRepairs orders repairs by line.
func sortRepairs(rs []Repair) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Line < rs[j].Line })
}
