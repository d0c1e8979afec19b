package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Record types (the "type" field). Any other type is kept as a Record with
// only the common fields decoded and its line in Raw; see Record.Known.
const (
	TypeUser                = "user"
	TypeAssistant           = "assistant"
	TypeSystem              = "system"
	TypeAttachment          = "attachment"
	TypeProgress            = "progress"
	TypeSummary             = "summary" // 1.0.x–2.0.x: a session title, not a compaction
	TypeFileHistorySnapshot = "file-history-snapshot"
	TypeQueueOperation      = "queue-operation"
	TypeLastPrompt          = "last-prompt"
)

// Subtypes of system records.
const (
	SubtypeCompactBoundary      = "compact_boundary"
	SubtypeMicrocompactBoundary = "microcompact_boundary"
	SubtypeStopHookSummary      = "stop_hook_summary"
	SubtypeTurnDuration         = "turn_duration"
	SubtypeInformational        = "informational"
	SubtypeLocalCommand         = "local_command"
	SubtypeAPIError             = "api_error"
)

// Content block types.
const (
	BlockText             = "text"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
	BlockToolUse          = "tool_use"
	BlockToolResult       = "tool_result"
	BlockImage            = "image"
	BlockDocument         = "document"
)

// SyntheticModel is the model name the client gives assistant messages it
// makes up itself (API errors, "No response requested."). Their usage is
// zero and says nothing about the context.
const SyntheticModel = "<synthetic>"

// Record is one line of a transcript. One flat struct serves every record
// type: each type fills the fields it carries and leaves the others zero.
// Fields this package does not interpret stay in Raw, which is the line
// exactly as it is in the file.
type Record struct {
	// Where the line is. Line is 1-based; both are zero for a record made
	// by ParseLine, which does not know where its line came from.
	Line   int   `json:"-"`
	Offset int64 `json:"-"`
	// Raw is the line exactly as in the file, without its '\n' (a CRLF
	// line keeps its '\r', the first line keeps a byte order mark):
	// writing Raw and '\n' reproduces the file byte for byte.
	Raw []byte `json:"-"`

	Type    string `json:"type"`
	Subtype string `json:"subtype"` // system records

	// Conversation records (user, assistant, system, attachment, progress).
	UUID              string    `json:"uuid"`
	ParentUUID        string    `json:"parentUuid"`
	LogicalParentUUID string    `json:"logicalParentUuid"` // compact_boundary: the last uuid before it
	IsSidechain       bool      `json:"isSidechain"`
	SessionID         string    `json:"sessionId"`
	AgentID           string    `json:"agentId"` // set in subagent transcripts
	Timestamp         time.Time `json:"-"`       // decoded leniently by ParseLine
	Cwd               string    `json:"cwd"`
	Version           string    `json:"version"` // the client's version
	GitBranch         string    `json:"gitBranch"`

	// User and assistant records.
	Message                   *Message `json:"message"`
	RequestID                 string   `json:"requestId"` // assistant
	IsMeta                    bool     `json:"isMeta"`    // written by the client, not typed by the user
	IsCompactSummary          bool     `json:"isCompactSummary"`
	IsVisibleInTranscriptOnly bool     `json:"isVisibleInTranscriptOnly"`
	// ToolUseResult is the tool's structured output on a user record that
	// carries a tool_result: an object, or a string or array in some
	// versions and for some tools. Subagent transcripts often omit it.
	ToolUseResult           json.RawMessage `json:"toolUseResult"`
	SourceToolAssistantUUID string          `json:"sourceToolAssistantUUID"`
	SourceToolUseID         string          `json:"sourceToolUseID"` // a skill's expanded prompt

	// System records; Content is also the prompt of a queue-operation.
	Content         string           `json:"content"`
	Level           string           `json:"level"`
	CompactMetadata *CompactMetadata `json:"compactMetadata"`
	DurationMS      float64          `json:"durationMs"` // turn_duration

	// Attachment records.
	Attachment *Attachment `json:"attachment"`

	// Progress records.
	Data            *Progress `json:"data"`
	ToolUseID       string    `json:"toolUseID"`
	ParentToolUseID string    `json:"parentToolUseID"`

	// Summary (old session titles) and last-prompt records.
	Summary    string `json:"summary"`
	LeafUUID   string `json:"leafUuid"`
	LastPrompt string `json:"lastPrompt"`

	// File-history-snapshot and queue-operation records.
	MessageID        string `json:"messageId"`
	IsSnapshotUpdate bool   `json:"isSnapshotUpdate"`
	Operation        string `json:"operation"` // enqueue, dequeue, remove, …
}

// Message is the API message of a user or assistant record.
type Message struct {
	ID         string  `json:"id"` // assistant: shared by every line of one response
	Role       string  `json:"role"`
	Model      string  `json:"model"`
	Content    Content `json:"content"`
	StopReason string  `json:"stop_reason"` // often null in the transcript, even on the last line
	Usage      Usage   `json:"usage"`
}

// Content is a message's or a tool result's content, which the API allows
// to be a plain string or an array of blocks. Decoding is lenient: a block
// field of an unexpected type is left zero (the record's Raw keeps it).
type Content struct {
	String string  // the content, when it was a JSON string
	Blocks []Block // the content, when it was an array
}

// Block is one content block. Each type fills its own fields; images,
// documents and redacted thinking keep their data only in the record's Raw.
type Block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`     // text
	Thinking string `json:"thinking"` // thinking

	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`

	// tool_result
	ToolUseID string  `json:"tool_use_id"`
	Content   Content `json:"content"`
	IsError   bool    `json:"is_error"`
}

// Usage is an assistant response's token usage.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// CompactMetadata describes a compaction, on its compact_boundary record.
type CompactMetadata struct {
	Trigger    string `json:"trigger"` // "auto" or "manual"
	PreTokens  int64  `json:"preTokens"`
	PostTokens int64  `json:"postTokens"` // 0 when not recorded (2.1.39 does not)
	// PreservedSegment is set when the client kept the last messages
	// verbatim: they stay before the boundary and are spliced in after the
	// summary (see Live).
	PreservedSegment *Segment `json:"preservedSegment"`
}

// Segment names a chain of records: Tail, then its parents back to Head,
// to be placed after Anchor.
type Segment struct {
	HeadUUID   string `json:"headUuid"`
	AnchorUUID string `json:"anchorUuid"`
	TailUUID   string `json:"tailUuid"`
}

// Attachment is the typed part of an attachment record; the rest (what the
// model is shown, in "rendered") stays in Raw.
type Attachment struct {
	Type string `json:"type"` // date, environment, hook_success, …
}

// Progress is the typed part of a progress record's data.
type Progress struct {
	Type    string `json:"type"`    // hook_progress, bash_progress, agent_progress, …
	AgentID string `json:"agentId"` // agent_progress: the subagent's transcript
}

// ErrNotObject is returned by ParseLine for a line that is valid JSON but
// not an object.
var ErrNotObject = errors.New("not a JSON object")

// A FieldError is returned by ParseLine for a JSON object in which a field
// has a type this package does not expect. The record is still returned
// and usable: that field is left zero, and Raw keeps it.
type FieldError struct{ Err error }

func (e *FieldError) Error() string { return "unexpected field type: " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

var bom = []byte("\xef\xbb\xbf")

// ParseLine decodes one transcript line, given without its '\n'. The
// record's Raw is line itself (not a copy). A leading UTF-8 byte order mark
// and surrounding whitespace (a CRLF's '\r') are ignored; invalid UTF-8
// inside strings becomes U+FFFD in the decoded fields.
//
// A line that is not JSON yields a *json.SyntaxError (wrapped) and one that
// is not an object ErrNotObject, both with a zero Record. A *FieldError
// comes with a usable Record.
func ParseLine(line []byte) (Record, error) {
	body := bytes.TrimPrefix(line, bom)
	rec := Record{Raw: line}
	w := wire{fields: (*fields)(&rec)}
	err := json.Unmarshal(body, &w)
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return Record{}, fmt.Errorf("invalid JSON: %w", err)
	}
	if !isObject(body) {
		return Record{}, ErrNotObject
	}
	rec.Timestamp = parseTime(w.Timestamp)
	if err != nil {
		return rec, &FieldError{err}
	}
	return rec, nil
}

// fields is Record without its methods, so that wire can embed it.
type fields Record

// wire is what ParseLine decodes into: the record's fields plus those that
// need lenient handling. A timestamp that fails to parse must not abort
// the decoding of the whole line, as time.Time's own decoder would.
type wire struct {
	*fields
	Timestamp string `json:"timestamp"`
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// isObject reports whether valid JSON is an object.
func isObject(body []byte) bool {
	body = bytes.TrimLeft(body, " \t\r\n")
	return len(body) > 0 && body[0] == '{'
}

// UnmarshalJSON accepts a string or an array of blocks; anything else
// leaves c empty. It never fails on valid JSON: a failure here would abort
// the decoding of the whole record.
func (c *Content) UnmarshalJSON(data []byte) error {
	*c = Content{}
	switch first(data) {
	case '"':
		_ = json.Unmarshal(data, &c.String)
	case '[':
		// A type mismatch inside a block leaves that field zero; the
		// decoder goes on with the rest.
		_ = json.Unmarshal(data, &c.Blocks)
	}
	return nil
}

func first(data []byte) byte {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return data[0]
}

// Text is the content as text: the string, or the non-empty text blocks
// joined by newlines.
func (c Content) Text() string {
	if c.Blocks == nil {
		return c.String
	}
	var b []byte
	for _, blk := range c.Blocks {
		if blk.Type != BlockText || blk.Text == "" {
			continue
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = append(b, blk.Text...)
	}
	return string(b)
}

// Context is the size of the prompt the response answered: input plus
// cache creation plus cache reads.
func (u Usage) Context() int64 {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// Known reports whether the record's type is one this package decodes.
func (r *Record) Known() bool {
	switch r.Type {
	case TypeUser, TypeAssistant, TypeSystem, TypeAttachment, TypeProgress,
		TypeSummary, TypeFileHistorySnapshot, TypeQueueOperation, TypeLastPrompt:
		return true
	}
	return false
}

// MainThread reports whether the record belongs to the main conversation
// rather than to a subagent (a sidechain, or a line of a subagent file).
func (r *Record) MainThread() bool { return !r.IsSidechain && r.AgentID == "" }

// IsCompactBoundary reports whether the record marks a compaction.
func (r *Record) IsCompactBoundary() bool {
	return r.Type == TypeSystem && r.Subtype == SubtypeCompactBoundary
}

// conversational reports whether the record is part of the conversation
// the model is sent (or its markers), as opposed to progress and
// bookkeeping lines.
func (r *Record) conversational() bool {
	switch r.Type {
	case TypeUser, TypeAssistant, TypeSystem, TypeAttachment:
		return true
	}
	return false
}
