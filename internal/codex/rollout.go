package codex

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// A rollout is a session's transcript (codex-hooks.md §8): one JSON object
// a line, {"timestamp", "ordinal", "type", "payload"}, where type is one
// of the line kinds below. Response items are what the model was sent and
// answered; event messages are what the client did; a compacted line
// replaces the history with a summary.
const (
	lineSessionMeta  = "session_meta"
	lineResponseItem = "response_item"
	lineEventMsg     = "event_msg"
	lineTurnContext  = "turn_context"
	lineCompacted    = "compacted"
	lineUsageRecord  = "token_usage_record"
)

// envelope is a rollout line's outer object.
type envelope struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// payload is the part of a line's payload ctxkeep reads. One flat struct
// serves every kind: each fills the fields it has.
type payload struct {
	Type string `json:"type"` // the item or event type

	// session_meta
	ID         string `json:"id"`
	CLIVersion string `json:"cli_version"`

	// turn_context
	Cwd            string `json:"cwd"`
	Model          string `json:"model"`
	ApprovalPolicy string `json:"approval_policy"`
	SandboxPolicy  struct {
		Type string `json:"type"`
	} `json:"sandbox_policy"`

	// response_item: message
	Role    string `json:"role"`
	Content []part `json:"content"`
	Meta    *struct {
		Kinds []string `json:"content_item_kinds"`
	} `json:"internal_chat_message_metadata_passthrough"`

	// response_item: function_call, custom_tool_call and their outputs
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`

	// event_msg: item_completed, token_count, task_started, turn_aborted
	Item               *item      `json:"item"`
	Info               *tokenInfo `json:"info"`
	ModelContextWindow int64      `json:"model_context_window"`

	// compacted (also event_msg user_message, in older clients)
	Message string `json:"message"`

	// token_usage_record: one response's usage, written as soon as it
	// is in (before its tool calls run; token_count comes after them)
	ResponseID string      `json:"response_id"`
	Usage      *tokenUsage `json:"usage"`
}

// part is one content part of a message.
type part struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// item is an event_msg item_completed's item: what the client recorded of
// a step, such as a command with its whole output and exit status.
type item struct {
	Type             string          `json:"type"` // CommandExecution, FileChange, McpToolCall, …
	ID               string          `json:"id"`   // a tool call's call_id
	AggregatedOutput *string         `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Changes          json.RawMessage `json:"changes"` // FileChange: path → change
}

// tokenInfo is a token_count event's info.
type tokenInfo struct {
	Total              tokenUsage `json:"total_token_usage"` // of the whole session so far
	Last               tokenUsage `json:"last_token_usage"`
	ModelContextWindow int64      `json:"model_context_window"`
}

// tokenUsage is one response's usage (input includes the cached part).
type tokenUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
}

// decode reads a line's envelope and payload; ok is false for a line that
// is not a rollout line.
func decode(raw []byte) (kind string, p payload, ok bool) {
	var e envelope
	if json.Unmarshal(raw, &e) != nil || e.Type == "" {
		return "", p, false
	}
	if json.Unmarshal(e.Payload, &p) != nil {
		return e.Type, p, false
	}
	return e.Type, p, true
}

// text joins a message's text parts with newlines.
func (p *payload) text() string {
	var texts []string
	for _, c := range p.Content {
		if c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// outputText is a tool call output's text: the string, or its text parts.
func (p *payload) outputText() string {
	var s string
	if json.Unmarshal(p.Output, &s) == nil {
		return s
	}
	var parts []part
	json.Unmarshal(p.Output, &parts)
	q := payload{Content: parts}
	return q.text()
}

// isPrompt reports whether a user message is something the user typed,
// rather than text the client put in the user's role: the environment
// context, a Stop hook's continuation (<hook_prompt>), a subagent's
// notification. Recent clients say so (content_item_kinds "user.text");
// for older ones, the client's own messages are wrapped in a tag.
func (p *payload) isPrompt() bool {
	if p.Meta != nil && len(p.Meta.Kinds) > 0 {
		for _, k := range p.Meta.Kinds {
			if k == "user.text" {
				return true
			}
		}
		return false
	}
	t := strings.TrimSpace(p.text())
	return t != "" && !clientTag(t)
}

// clientTag reports whether text opens with a tag such as
// <environment_context> or <user_instructions>.
func clientTag(text string) bool {
	if !strings.HasPrefix(text, "<") {
		return false
	}
	end := strings.IndexAny(text, "> ")
	if end < 2 {
		return false
	}
	for _, r := range text[1:end] {
		if !(r >= 'a' && r <= 'z' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// takeUsage updates u with one line, in file order, as the client counts
// the context: the last response's input plus output tokens, in the
// window it recorded. A response's usage is in a token_usage_record as
// soon as it is in (what a hook sees during the response's tool calls),
// and again in the token_count after them. After a compaction the client
// records its estimate of what is left, with no input of its own;
// Compacted stays set until a response follows.
func takeUsage(u *ctxkeep.Usage, kind string, p *payload, at time.Time) {
	switch {
	case kind == lineTurnContext && p.Model != "":
		u.Model = p.Model
	case kind == lineEventMsg && p.Type == "task_started" && p.ModelContextWindow > 0:
		u.Window = p.ModelContextWindow
	case kind == lineCompacted:
		*u = ctxkeep.Usage{Model: u.Model, Window: u.Window, Timestamp: at, Compacted: true}
	case kind == lineUsageRecord && p.Usage != nil:
		setUsage(u, *p.Usage, u.Window, p.ResponseID, at)
	case kind == lineEventMsg && p.Type == "token_count" && p.Info != nil:
		setUsage(u, p.Info.Last, p.Info.ModelContextWindow, u.MessageID, at)
	}
}

// setUsage takes one response's usage (or the estimate after a
// compaction: no input) into u.
func setUsage(u *ctxkeep.Usage, last tokenUsage, window int64, response string, at time.Time) {
	if window == 0 {
		window = u.Window
	}
	total := last.TotalTokens
	if total == 0 {
		total = last.InputTokens + last.OutputTokens
	}
	if total == 0 {
		return // nothing recorded yet
	}
	next := ctxkeep.Usage{Tokens: total, InputTokens: last.InputTokens, Model: u.Model, MessageID: response, Window: window, Timestamp: at}
	if last.InputTokens == 0 { // the estimate after a compaction
		next.InputTokens, next.Compacted, next.MessageID = total, true, ""
	}
	*u = next
}
