package fakeapi

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
	// Main is a request of the main conversation thread: the ones a test
	// scripts.
	Main Kind = iota
	// Summary is the compaction summarisation request: its last user
	// message asks to "create a detailed summary" of the conversation.
	Summary
	// Subagent is a request from a subagent (the Agent tool). The client
	// marks these with the X-Claude-Code-Agent-Id header.
	Subagent
	// Other is any request that is not POST /v1/messages.
	Other
)

// summaryMarker identifies the summarisation request (reference §7.3).
const summaryMarker = "create a detailed summary"

func (k Kind) String() string {
	switch k {
	case Main:
		return "main"
	case Summary:
		return "summary"
	case Subagent:
		return "subagent"
	case Other:
		return "other"
	}
	return "unknown"
}

// Request is one HTTP request the fake received. It is never modified after
// it has been recorded, so it is safe to read from any goroutine.
type Request struct {
	Seq      int // position in arrival order, from 0
	Time     time.Time
	Method   string
	Path     string // URL path without the query, e.g. "/v1/messages"
	RawQuery string // e.g. "beta=true"
	Header   http.Header
	Body     []byte         // the body as received
	JSON     map[string]any // the body decoded generically; nil unless a JSON object
	Params   *Params        // the body of a Messages request; nil otherwise
	Kind     Kind

	SessionID string // X-Claude-Code-Session-Id header
	AgentID   string // X-Claude-Code-Agent-Id header; set on subagent requests
}

// Params is the part of a Messages request body that tests look at.
type Params struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	Stream    bool      `json:"stream"`
	System    Content   `json:"system"`
	Messages  []Message `json:"messages"`
	Tools     []Tool    `json:"tools"`
}

// Message is one entry of Params.Messages. Besides "user" and "assistant",
// the client sends role "system" entries inside messages (reference §5).
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Tool is a tool definition offered to the model.
type Tool struct {
	Name string `json:"name"`
}

// Block is a content block, in a request or in a Reply.
type Block struct {
	Type      string          `json:"type"` // "text", "tool_use", "tool_result", …
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`    // tool_use
	Name      string          `json:"name,omitempty"`  // tool_use
	Input     json.RawMessage `json:"input,omitempty"` // tool_use
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   Content         `json:"content,omitempty"` // tool_result
	IsError   bool            `json:"is_error,omitempty"`
}

// Content is a list of content blocks. It also decodes the string shorthand
// the API accepts, as a single text block.
type Content []Block

// UnmarshalJSON accepts either a string or an array of blocks.
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var blocks []Block
	if err := json.Unmarshal(data, &blocks); err != nil {
		return err
	}
	*c = blocks
	return nil
}

// Text joins the text blocks with newlines.
func (c Content) Text() string {
	var texts []string
	for _, b := range c {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Messages returns the conversation the request carries, or nil if it is not
// a Messages request.
func (r *Request) Messages() []Message {
	if r.Params == nil {
		return nil
	}
	return r.Params.Messages
}

// SystemPrompt returns the text of the top-level system prompt.
func (r *Request) SystemPrompt() string {
	if r.Params == nil {
		return ""
	}
	return r.Params.System.Text()
}

// SystemMessages returns the text of each role:"system" entry of messages:
// where hook additionalContext and SessionStart output land.
func (r *Request) SystemMessages() []string {
	return r.texts("system")
}

// UserTexts returns the text of each user message, leaving tool results out.
// Messages made only of tool results are skipped.
func (r *Request) UserTexts() []string {
	return r.texts("user")
}

func (r *Request) texts(role string) []string {
	var texts []string
	for _, m := range r.Messages() {
		if m.Role != role {
			continue
		}
		if t := m.Content.Text(); t != "" {
			texts = append(texts, t)
		}
	}
	return texts
}

// LastUserText returns the text of the last user message, or "".
func (r *Request) LastUserText() string {
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content.Text()
		}
	}
	return ""
}

// ToolResult returns the text the model was given as the result of the
// tool_use with the given id, and whether the request holds such a result.
func (r *Request) ToolResult(toolUseID string) (string, bool) {
	for _, m := range r.Messages() {
		for _, b := range m.Content {
			if b.Type == "tool_result" && b.ToolUseID == toolUseID {
				return b.Content.Text(), true
			}
		}
	}
	return "", false
}

// Contains reports whether s occurs in what the model is shown in messages:
// any text block of any role, or any tool result. The system prompt and tool
// definitions are not searched.
func (r *Request) Contains(s string) bool {
	for _, m := range r.Messages() {
		for _, b := range m.Content {
			if strings.Contains(b.Text, s) || strings.Contains(b.Content.Text(), s) {
				return true
			}
		}
	}
	return false
}

// ToolNames returns the names of the tools offered to the model.
func (r *Request) ToolNames() []string {
	if r.Params == nil {
		return nil
	}
	names := make([]string, len(r.Params.Tools))
	for i, t := range r.Params.Tools {
		names[i] = t.Name
	}
	return names
}

// classify decides the Kind of a request whose other fields are filled in.
func classify(r *Request) Kind {
	switch {
	case r.Method != http.MethodPost || r.Path != messagesPath:
		return Other
	case strings.Contains(r.LastUserText(), summaryMarker):
		return Summary
	case r.AgentID != "":
		return Subagent
	default:
		return Main
	}
}
