package fakegemini

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Kind says what a request is for.
type Kind string

const (
	Main        Kind = "main"    // a turn of the agent: streamGenerateContent
	Summary     Kind = "summary" // the compression summariser: generateContent
	Probe       Kind = "probe"   // the summariser's second look at its snapshot
	OneShot     Kind = "oneshot" // any other generateContent
	CountTokens Kind = "countTokens"
	Other       Kind = "other" // not an endpoint of the fake
)

// Request is one request the fake received.
type Request struct {
	Seq      int
	Kind     Kind
	Stream   bool
	Time     time.Time
	Method   string
	Path     string
	Header   http.Header
	Body     []byte
	Contents []Content // the conversation sent
}

// Content is one message of the conversation, as the API takes it.
type Content struct {
	Role  string        `json:"role"`
	Parts []ContentPart `json:"parts"`
}

// ContentPart is one part of a message.
type ContentPart struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *json.RawMessage  `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
}

// FunctionResponse is a tool's result as the model gets it: {"output": …}
// for a success, {"error": …} for a failure (and an AfterTool hook's deny).
type FunctionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// Text is the response's text: its output or its error, whichever it has,
// or the response as JSON.
func (f *FunctionResponse) Text() string {
	var r struct {
		Output *string `json:"output"`
		Error  *string `json:"error"`
	}
	if json.Unmarshal(f.Response, &r) == nil {
		switch {
		case r.Output != nil:
			return *r.Output
		case r.Error != nil:
			return *r.Error
		}
	}
	return string(f.Response)
}

// IsError reports whether the response is a failure ({"error": …}).
func (f *FunctionResponse) IsError() bool {
	var r map[string]json.RawMessage
	if json.Unmarshal(f.Response, &r) != nil {
		return false
	}
	_, out := r["output"]
	_, failed := r["error"]
	return failed && !out
}

// ToolResponse returns the response to the call with id in the request,
// the first one if the CLI sent it more than once.
func (r *Request) ToolResponse(id string) (*FunctionResponse, bool) {
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.ID == id {
				return p.FunctionResponse, true
			}
		}
	}
	return nil, false
}

// Texts returns the text parts of the messages of a role ("user", "model"),
// in order.
func (r *Request) Texts(role string) []string {
	var out []string
	for _, c := range r.Contents {
		if c.Role != role {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != "" && !p.Thought {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// Contains reports whether s occurs anywhere in the request's body (the
// raw JSON, so quotes and newlines are escaped there).
func (r *Request) Contains(s string) bool {
	return strings.Contains(string(r.Body), s)
}

// lastUserText is the text of the last user message.
func (r *Request) lastUserText() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		if r.Contents[i].Role != "user" {
			continue
		}
		var b strings.Builder
		for _, p := range r.Contents[i].Parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}
