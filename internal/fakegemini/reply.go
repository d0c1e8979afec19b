package fakegemini

import "encoding/json"

// Model is the model the fake reports; the harness pins the CLI to it, so
// that no router call is made (gemini-cli-hooks.md).
const Model = "gemini-2.5-pro"

// Reply is what the fake model answers to one request.
type Reply struct {
	Parts []Part
	// Usage is reported as the usageMetadata of the last chunk; the zero
	// value reports DefaultUsage. The CLI compresses when the last
	// promptTokenCount passes model.compressionThreshold of the model's
	// limit, at the next prompt.
	Usage Usage
	// Error, when set, is answered with HTTP 400 and this message instead.
	Error string
}

// Part is a piece of the model's answer: text, or a function call.
type Part struct {
	Text string
	Call *FunctionCall
}

// FunctionCall is a call of one of the CLI's tools.
type FunctionCall struct {
	// ID is the call's id; the CLI makes one up when it is empty, so tests
	// give one to find its response in the next request.
	ID   string
	Name string
	Args any
}

// Usage is the token accounting of a response.
type Usage struct {
	Prompt     int // promptTokenCount: the context the response was given
	Candidates int // candidatesTokenCount
	Cached     int // cachedContentTokenCount
	Thoughts   int // thoughtsTokenCount
}

// DefaultUsage is reported by a reply that sets none.
var DefaultUsage = Usage{Prompt: 1000, Candidates: 20}

// Say returns a reply made of one text.
func Say(text string) Reply { return Reply{Parts: []Part{{Text: text}}} }

// Call returns a reply that calls a tool with args (marshalled to JSON).
func Call(id, name string, args any) Reply {
	return Reply{Parts: []Part{{Call: &FunctionCall{ID: id, Name: name, Args: args}}}}
}

// Shell returns a reply that runs a command with run_shell_command.
func Shell(id, command string) Reply {
	return Call(id, "run_shell_command", map[string]string{"command": command, "description": "scripted step " + id})
}

// Then returns r with the parts of next after its own: words and a call
// in one answer.
func (r Reply) Then(next Reply) Reply {
	r.Parts = append(append([]Part(nil), r.Parts...), next.Parts...)
	return r
}

// WithUsage returns r reporting u.
func (r Reply) WithUsage(u Usage) Reply {
	r.Usage = u
	return r
}

// The API's shapes, as the reply is written.
type (
	response struct {
		Candidates    []candidate    `json:"candidates"`
		UsageMetadata *usageMetadata `json:"usageMetadata,omitempty"`
		ModelVersion  string         `json:"modelVersion"`
	}
	candidate struct {
		Content      content `json:"content"`
		FinishReason string  `json:"finishReason,omitempty"`
		Index        int     `json:"index"`
	}
	content struct {
		Role  string     `json:"role"`
		Parts []partJSON `json:"parts"`
	}
	partJSON struct {
		Text         string        `json:"text,omitempty"`
		FunctionCall *functionCall `json:"functionCall,omitempty"`
	}
	functionCall struct {
		ID   string          `json:"id,omitempty"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	usageMetadata struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
		TotalTokenCount         int `json:"totalTokenCount"`
	}
)

func (r Reply) usage() *usageMetadata {
	u := r.Usage
	if u == (Usage{}) {
		u = DefaultUsage
	}
	return &usageMetadata{PromptTokenCount: u.Prompt, CandidatesTokenCount: u.Candidates, CachedContentTokenCount: u.Cached,
		ThoughtsTokenCount: u.Thoughts, TotalTokenCount: u.Prompt + u.Candidates + u.Thoughts}
}

func (p Part) json() partJSON {
	if p.Call == nil {
		return partJSON{Text: p.Text}
	}
	args, err := json.Marshal(p.Call.Args)
	if err != nil || p.Call.Args == nil {
		args = json.RawMessage("{}")
	}
	return partJSON{FunctionCall: &functionCall{ID: p.Call.ID, Name: p.Call.Name, Args: args}}
}

// chunks is the reply as the stream's events: one a part, the last with
// the finish reason and the usage.
func (r Reply) chunks() []response {
	parts := r.Parts
	if len(parts) == 0 {
		parts = []Part{{Text: ""}}
	}
	out := make([]response, len(parts))
	for i, p := range parts {
		out[i] = response{Candidates: []candidate{{Content: content{Role: "model", Parts: []partJSON{p.json()}}}}, ModelVersion: Model}
	}
	last := &out[len(out)-1]
	last.Candidates[0].FinishReason = "STOP"
	last.UsageMetadata = r.usage()
	return out
}

// response is the reply as one generateContent answer.
func (r Reply) response() response {
	var parts []partJSON
	for _, p := range r.Parts {
		parts = append(parts, p.json())
	}
	return response{Candidates: []candidate{{Content: content{Role: "model", Parts: parts}, FinishReason: "STOP"}},
		UsageMetadata: r.usage(), ModelVersion: Model}
}
