package fakeresponses

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Kind says which part of the client sent a request.
type Kind int

const (
	// Main is a turn request of the main thread: the ones a test scripts.
	Main Kind = iota
	// Compaction is Codex asking for a handoff summary of the conversation
	// (x-codex-turn-metadata request_kind "compaction").
	Compaction
	// Subagent is a request of a subagent or of the guardian reviewer
	// (x-openai-subagent header).
	Subagent
	// Other is any request that is not POST /v1/responses.
	Other
)

func (k Kind) String() string {
	switch k {
	case Main:
		return "main"
	case Compaction:
		return "compaction"
	case Subagent:
		return "subagent"
	case Other:
		return "other"
	}
	return "unknown"
}

// compactionMarker opens the last user message of a compaction request
// (codex-hooks.md §7), for a request whose metadata header is missing.
const compactionMarker = "CONTEXT CHECKPOINT COMPACTION"

// Request is one HTTP request the fake received. It is never modified after
// it has been recorded, so it is safe to read from any goroutine.
type Request struct {
	Seq    int // position in arrival order, from 0
	Time   time.Time
	Method string
	Path   string
	Header http.Header
	Body   []byte
	Params *Params // the body of a /responses request; nil otherwise
	Kind   Kind
}

// Params is the part of a /responses request body that tests look at.
type Params struct {
	Model          string            `json:"model"`
	Stream         bool              `json:"stream"`
	Input          []Item            `json:"input"`
	Tools          []json.RawMessage `json:"tools"`
	PromptCacheKey string            `json:"prompt_cache_key"` // the session id
}

// Item is one input item (or one output item of a Reply).
type Item struct {
	Type      string          `json:"type"`           // message, function_call, function_call_output, custom_tool_call, …
	Role      string          `json:"role,omitempty"` // message: developer, user, assistant
	Content   []Part          `json:"content,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Namespace string          `json:"namespace,omitempty"` // namespaced tools: mcp__server
	Arguments string          `json:"arguments,omitempty"` // function_call: JSON text
	Input     string          `json:"input,omitempty"`     // custom_tool_call: freeform text
	Output    json.RawMessage `json:"output,omitempty"`    // *_call_output: a string or content parts
}

// Part is one content part of a message.
type Part struct {
	Type string `json:"type"` // input_text, output_text, …
	Text string `json:"text,omitempty"`
}

// Text joins the text of a message's parts with newlines.
func (it Item) Text() string {
	var texts []string
	for _, p := range it.Content {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// OutputText is the text of a tool call's output: the string, or its text
// parts joined.
func (it Item) OutputText() string {
	data := bytes.TrimSpace(it.Output)
	if len(data) > 0 && data[0] == '"' {
		var s string
		json.Unmarshal(data, &s)
		return s
	}
	var parts []Part
	json.Unmarshal(data, &parts)
	return Item{Content: parts}.Text()
}

// Items returns the request's input, or nil if it is not a /responses
// request.
func (r *Request) Items() []Item {
	if r.Params == nil {
		return nil
	}
	return r.Params.Input
}

// Messages returns the text of each message of a role, in order: developer
// messages carry the hooks' additional context (codex-hooks.md §6).
func (r *Request) Messages(role string) []string {
	var out []string
	for _, it := range r.Items() {
		if it.Type == "message" && it.Role == role {
			out = append(out, it.Text())
		}
	}
	return out
}

// ToolOutput returns what the model was given as the output of the call
// with callID, and whether the request holds it.
func (r *Request) ToolOutput(callID string) (string, bool) {
	for _, it := range r.Items() {
		if (it.Type == "function_call_output" || it.Type == "custom_tool_call_output") && it.CallID == callID {
			return it.OutputText(), true
		}
	}
	return "", false
}

// Contains reports whether s occurs in any message or tool output of the
// input.
func (r *Request) Contains(s string) bool {
	for _, it := range r.Items() {
		if strings.Contains(it.Text(), s) || strings.Contains(it.OutputText(), s) {
			return true
		}
	}
	return false
}

// Metadata is the x-codex-turn-metadata header, decoded.
func (r *Request) Metadata() map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(r.Header.Get("X-Codex-Turn-Metadata")), &m)
	return m
}

// lastUserText is the text of the last user message.
func (r *Request) lastUserText() string {
	items := r.Items()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Type == "message" && items[i].Role == "user" {
			return items[i].Text()
		}
	}
	return ""
}

// classify decides the Kind of a request whose other fields are filled in.
func classify(r *Request) Kind {
	switch {
	case r.Method != http.MethodPost || r.Path != responsesPath || r.Params == nil:
		return Other
	case r.Metadata()["request_kind"] == "compaction" || strings.Contains(r.lastUserText(), compactionMarker):
		return Compaction
	case r.Header.Get("X-Openai-Subagent") != "":
		return Subagent
	default:
		return Main
	}
}
