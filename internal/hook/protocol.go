package hook

import (
	"encoding/json"
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// Event is a Claude Code hook payload (claude-code-hooks.md §2–3), a
// Codex one, which has the same fields (codex-hooks.md §5), or a Gemini
// CLI one, whose fields ctxkeep reads have the same names but for the
// model request (gemini-cli-hooks.md). One flat
// struct serves every event: it is decoded once, and each handler reads the
// fields its event carries. Tool inputs and outputs stay raw until a policy
// needs them.
type Event struct {
	// Common to all events.
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`
	PromptID       string `json:"prompt_id,omitempty"`
	AgentID        string `json:"agent_id,omitempty"` // inside subagents
	AgentType      string `json:"agent_type,omitempty"`
	TurnID         string `json:"turn_id,omitempty"`   // Codex: the turn of the call
	Timestamp      string `json:"timestamp,omitempty"` // Gemini: when the event fired

	// SessionStart.
	Source        string `json:"source,omitempty"` // startup, resume, clear, compact, fork
	Model         string `json:"model,omitempty"`
	ContextTokens int64  `json:"context_tokens,omitempty"` // on resume and fork

	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`

	// PreToolUse, PostToolUse, PostToolUseFailure.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"` // PostToolUse
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Error        string          `json:"error,omitempty"` // PostToolUseFailure
	IsInterrupt  bool            `json:"is_interrupt,omitempty"`
	DurationMs   int64           `json:"duration_ms,omitempty"`
	// Gemini's AfterTool of a tail call: the tool first asked for.
	OriginalRequestName string `json:"original_request_name,omitempty"`

	// Gemini's BeforeModel: the request about to be sent, {model,
	// messages [{role, content}], config}.
	LLMRequest json.RawMessage `json:"llm_request,omitempty"`

	// PreCompact.
	Trigger            string  `json:"trigger,omitempty"` // manual, auto
	CustomInstructions *string `json:"custom_instructions,omitempty"`

	// PostCompact: the summariser's raw text, <analysis> and <summary>.
	CompactSummary string `json:"compact_summary,omitempty"`

	// Stop, SubagentStop.
	StopHookActive       bool   `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	AgentTranscriptPath  string `json:"agent_transcript_path,omitempty"`

	// SessionEnd.
	Reason string `json:"reason,omitempty"` // clear, logout, prompt_input_exit, other, …
}

// Reply is what a handler asks the client to do (§2 "Common JSON fields",
// §4.1). A nil *Reply means "nothing": empty stdout, the client proceeds.
type Reply struct {
	Continue       *bool           `json:"continue,omitempty"`
	StopReason     string          `json:"stopReason,omitempty"`
	SuppressOutput bool            `json:"suppressOutput,omitempty"`
	SystemMessage  string          `json:"systemMessage,omitempty"` // shown to the user only
	Decision       string          `json:"decision,omitempty"`
	Reason         string          `json:"reason,omitempty"`
	Specific       *SpecificOutput `json:"hookSpecificOutput,omitempty"`

	// Text, when set, is written as plain stdout instead of JSON: PreCompact
	// reads plain text as summary instructions and rejects
	// hookSpecificOutput (§7.4).
	Text string `json:"-"`
}

// SpecificOutput is the event-specific part of a reply. HookEventName must
// equal the event being answered or the client rejects the reply.
type SpecificOutput struct {
	HookEventName            string          `json:"hookEventName"`
	AdditionalContext        string          `json:"additionalContext,omitempty"`
	UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput,omitempty"`
	UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	// Gemini CLI: BeforeTool's replacement arguments, BeforeModel's
	// edited request.
	ToolInput  json.RawMessage `json:"tool_input,omitempty"`
	LLMRequest json.RawMessage `json:"llm_request,omitempty"`
}

// redacted is r with the secrets of what the model and the user are told
// replaced by markers: one pass over every reply, whichever handler wrote
// it (a restore block, a recall, a supplement, a view). The rewritten
// input of a wrapped command is left alone: it runs.
func (r *Reply) redacted() *Reply {
	out := *r
	out.StopReason, out.SystemMessage, out.Reason = redact.String(r.StopReason), redact.String(r.SystemMessage), redact.String(r.Reason)
	out.Text = redact.String(r.Text)
	if r.Specific != nil {
		s := *r.Specific
		s.AdditionalContext = redact.String(s.AdditionalContext)
		s.PermissionDecisionReason = redact.String(s.PermissionDecisionReason)
		s.UpdatedToolOutput = redact.JSON(s.UpdatedToolOutput)
		s.UpdatedMCPToolOutput = redact.JSON(s.UpdatedMCPToolOutput)
		out.Specific = &s
	}
	return &out
}

// encode renders a reply for stdout. What the model or the user reads of
// it is shown as a terminal shows it (text.Printable): whatever a handler
// took from a transcript or a tool output, no control sequence goes out.
// A replacement is left as it is (a view is already so, and it is
// compared with the transcript by its hash: updatedToolOutput, and the
// reason of Codex's block decision).
func (r *Reply) encode() ([]byte, error) {
	r.SystemMessage, r.StopReason = text.Printable(r.SystemMessage), text.Printable(r.StopReason)
	if s := r.Specific; s != nil {
		s.AdditionalContext, s.PermissionDecisionReason = text.Printable(s.AdditionalContext), text.Printable(s.PermissionDecisionReason)
	}
	if r.Text != "" {
		return []byte(text.Printable(r.Text)), nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// validToolUseID checks a tool_use_id before it names a file (the
// wrapper's spool): the API's ids ("toolu_01…", "toolu_bdrk_…") are
// letters, digits, '_' and '-', so nothing else is accepted — no '/', no
// '.', nothing a path could climb out with.
func validToolUseID(id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("invalid tool_use_id %q", id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("invalid tool_use_id %q", id)
		}
	}
	return nil
}
