package fakeapi

import (
	"encoding/json"
	"fmt"
)

// Reply is what the fake model answers to one Messages request.
type Reply struct {
	Content []Block
	// StopReason defaults to "tool_use" when Content holds a tool_use
	// block, and to "end_turn" otherwise.
	StopReason string
	// Usage is reported as is; tests raise it to simulate a growing context
	// (auto-compaction compares the sum of all four numbers to its threshold).
	Usage Usage
	// Error, when set, is sent instead of a message.
	Error *APIError
}

// Usage is the token accounting of a reply.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// Total is the context size the client derives from a reply.
func (u Usage) Total() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens + u.OutputTokens
}

// APIError is an error response of the API, such as
// 400 invalid_request_error "prompt is too long: …".
type APIError struct {
	Status  int
	Type    string
	Message string
}

// Text returns a text block.
func Text(s string) Block {
	return Block{Type: "text", Text: s}
}

// ToolUse returns a tool_use block. input is marshalled to JSON; nil means
// {}. It panics if input cannot be marshalled, a mistake in the test itself.
func ToolUse(id, name string, input any) Block {
	raw := json.RawMessage("{}")
	if input != nil {
		var err error
		if raw, err = json.Marshal(input); err != nil {
			panic(fmt.Sprintf("fakeapi.ToolUse(%q, %q): %v", id, name, err))
		}
	}
	return Block{Type: "tool_use", ID: id, Name: name, Input: raw}
}

// Say returns a reply made of one text block.
func Say(text string) Reply {
	return Reply{Content: []Block{Text(text)}}
}

// Call returns a reply that calls one tool.
func Call(id, name string, input any) Reply {
	return Reply{Content: []Block{ToolUse(id, name, input)}}
}

// Bash returns a reply that runs command with the Bash tool.
func Bash(id, command string) Reply {
	return Call(id, "Bash", map[string]string{"command": command, "description": "Run a command"})
}

// Fail returns a reply that answers with an API error.
func Fail(status int, errType, message string) Reply {
	return Reply{Error: &APIError{Status: status, Type: errType, Message: message}}
}

// Done is the reply once a script has run out.
func Done() Reply {
	return Say("done")
}

// WithUsage returns a copy of r that reports u.
func (r Reply) WithUsage(u Usage) Reply {
	r.Usage = u
	return r
}

// summaryReply answers a summarisation request. The client requires a
// <summary> block (reference §7.3).
func summaryReply(summary string) Reply {
	text := "<analysis>\nFake analysis.\n</analysis>\n\n<summary>\n" + summary + "\n</summary>"
	return Say(text).WithUsage(Usage{InputTokens: 100, OutputTokens: 50})
}

func (r Reply) stopReason() string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Content {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}
