package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fastjson"
)

// A chat file (gemini-cli-hooks.md, "Transcript") is JSON lines: a header
// {sessionId, projectHash, startTime, lastUpdated, kind} (again at each
// resume), then message records {id, timestamp, type, content, tokens,
// model, toolCalls}, each written again, whole, as it grows (a model's
// message first without its tool calls, then with them and their
// results), and {"$set": {…}} updates: the time, or the whole history
// (messages) at a resume, in the API's shape, and after a compression,
// when it is a <state_snapshot> and the model's acknowledgement.

// record is one line of a chat file, as far as ctxkeep reads it.
type record struct {
	// Header.
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	Kind        string `json:"kind"`

	// Message.
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"` // user, gemini, info, error, warning
	Content   json.RawMessage `json:"content"`
	Tokens    *tokens         `json:"tokens"`
	Model     string          `json:"model"`
	ToolCalls []toolCall      `json:"toolCalls"`

	// Update.
	Set *struct {
		Messages []record `json:"messages"`
	} `json:"$set"`
}

// tokens are a model message's usage, from the API's usageMetadata:
// input is promptTokenCount, the figure the CLI compresses on.
type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

// toolCall is a model message's call, with its result once it ran.
type toolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result []struct {
		FunctionResponse *functionResponse `json:"functionResponse"`
	} `json:"result"`
	Status        string          `json:"status"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	Timestamp     string          `json:"timestamp"`
}

type functionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// part is a part of a message's content.
type part struct {
	Text             string            `json:"text"`
	Thought          bool              `json:"thought"`
	FunctionCall     json.RawMessage   `json:"functionCall"`
	FunctionResponse *functionResponse `json:"functionResponse"`
}

func decodeRecord(line []byte) (record, bool) {
	var r record
	if err := fastjson.Unmarshal(bytes.TrimSpace(line), &r); err != nil {
		return record{}, false
	}
	return r, true
}

// isHeader: the session's first line, written again at each resume.
func (r *record) isHeader() bool { return r.SessionID != "" && r.StartTime != "" && r.ID == "" }

// time is the record's timestamp, zero when it has none.
func (r *record) time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r.Timestamp)
	return t
}

// parts is the content as parts: a model message's content is often a
// plain string.
func (r *record) parts() []part {
	c := bytes.TrimSpace(r.Content)
	if len(c) == 0 {
		return nil
	}
	if c[0] == '"' {
		var s string
		if json.Unmarshal(c, &s) == nil && s != "" {
			return []part{{Text: s}}
		}
		return nil
	}
	var ps []part
	json.Unmarshal(c, &ps)
	return ps
}

// text joins the text parts of the content, without thoughts.
func (r *record) text() string {
	var texts []string
	for _, p := range r.parts() {
		if p.Text != "" && !p.Thought {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// The CLI's own additions to what the user typed.
const (
	sessionContext = "<session_context>"
	hookContext    = "<hook_context>"
	hookContextEnd = "</hook_context>"
	stateSnapshot  = "<state_snapshot>"
)

// prompt is what the user typed in a user message, without what hooks and
// the CLI added (a SessionStart hook's context is prepended to the prompt,
// a BeforeAgent hook's is a part of its own), and whether the message is
// a prompt at all: not a tool result, the session context, a snapshot.
func (r *record) prompt() (string, bool) {
	if r.Type != "user" {
		return "", false
	}
	var texts []string
	for _, p := range r.parts() {
		if p.FunctionResponse != nil {
			return "", false
		}
		t := p.Text
		if strings.HasPrefix(t, sessionContext) || strings.HasPrefix(t, stateSnapshot) {
			return "", false
		}
		for strings.HasPrefix(t, hookContext) {
			end := strings.Index(t, hookContextEnd)
			if end < 0 {
				t = ""
				break
			}
			t = strings.TrimLeft(t[end+len(hookContextEnd):], "\n")
		}
		if t = strings.TrimSpace(t); t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		return "", false
	}
	return strings.Join(texts, "\n"), true
}

// snapshot is the <state_snapshot> a compression left in a $set of the
// history, "" when the update is not a compression. A compressed history
// is the session context and the snapshot, then the model's
// acknowledgement: a history reloaded at a resume has the turns that
// followed after it.
func (r *record) snapshot() string {
	if r.Set == nil || len(r.Set.Messages) < 2 {
		return ""
	}
	ms := r.Set.Messages
	last := ms[len(ms)-1]
	if last.Type != "gemini" {
		return ""
	}
	for i := len(ms) - 2; i >= 0; i-- {
		for _, p := range ms[i].parts() {
			if i := strings.Index(p.Text, stateSnapshot); i >= 0 {
				return strings.TrimSpace(p.Text[i:])
			}
		}
	}
	return ""
}

// resultText is a tool call's result as the model got it: the response's
// output, or its error (a failure, or the view of a hook's deny).
func (c *toolCall) resultText() (string, bool, bool) {
	for _, r := range c.Result {
		if r.FunctionResponse == nil {
			continue
		}
		var resp struct {
			Output *string `json:"output"`
			Error  *string `json:"error"`
		}
		if json.Unmarshal(r.FunctionResponse.Response, &resp) != nil {
			return string(r.FunctionResponse.Response), false, true
		}
		switch {
		case resp.Output != nil:
			return *resp.Output, false, true
		case resp.Error != nil:
			return *resp.Error, true, true
		}
		return string(r.FunctionResponse.Response), false, true
	}
	return "", false, false
}
