package transcript

import (
	"encoding/json"
	"strings"
)

// Response is one assistant response. The client writes it as one line
// per content block, all with the same message.id, and when a tool runs
// while the response is still streaming, its tool_result can come between
// those lines.
type Response struct {
	ID         string
	Model      string
	StopReason string    // the last one recorded; often empty
	Blocks     []Block   // every line's blocks, in order
	Usage      Usage     // from the last line: earlier lines carry partial output counts
	Records    []*Record // its lines, in file order
}

// Responses merges the assistant records of recs into whole responses,
// in the order of their first lines. Records point into recs. An assistant
// record without a message id is a response by itself.
func Responses(recs []Record) []Response {
	var out []Response
	byID := make(map[string]int)
	for i := range recs {
		r := &recs[i]
		if r.Type != TypeAssistant || r.Message == nil {
			continue
		}
		id := r.Message.ID
		j, seen := byID[id]
		if !seen || id == "" {
			j = len(out)
			out = append(out, Response{ID: id})
			byID[id] = j
		}
		out[j].add(r)
	}
	return out
}

func (resp *Response) add(r *Record) {
	m := r.Message
	resp.Blocks = append(resp.Blocks, m.Content.blocks()...)
	if resp.Model == "" {
		resp.Model = m.Model
	}
	if m.StopReason != "" {
		resp.StopReason = m.StopReason
	}
	resp.Usage = m.Usage
	resp.Records = append(resp.Records, r)
}

// blocks returns the content as blocks: a string is one text block.
func (c Content) blocks() []Block {
	if c.Blocks == nil && c.String != "" {
		return []Block{{Type: BlockText, Text: c.String}}
	}
	return c.Blocks
}

// appendTexts appends the text of the non-blank text blocks to texts.
func appendTexts(texts []string, blocks []Block) []string {
	for _, b := range blocks {
		if t := strings.TrimSpace(b.Text); b.Type == BlockText && t != "" {
			texts = append(texts, t)
		}
	}
	return texts
}

// ToolCall is a tool_use block and, once recorded, its result.
type ToolCall struct {
	ID     string
	Name   string
	Input  json.RawMessage
	Use    *Record     // the assistant line holding the tool_use
	Result *ToolResult // nil when no result was recorded: interrupted, still running, or lost
}

// ToolResult is a tool_result block and the structured output recorded
// with it.
type ToolResult struct {
	ToolUseID string
	Content   Content // what the model was shown
	IsError   bool
	// Structured is the record's toolUseResult, the tool's own output
	// (PostToolUse's tool_response). Nil when the client did not record it,
	// or when one line carries several results and it cannot say whose.
	Structured json.RawMessage
	Record     *Record // the user line holding the tool_result
	// Exit is a command's exit status when the client records it apart
	// from the text (Codex does; Claude Code writes "Exit code N" into
	// the text of a failure). Nil when it does not.
	Exit *int
}

// Text is the result's content as text.
func (r *ToolResult) Text() string { return r.Content.Text() }

// ToolCalls pairs the tool_use blocks of recs with their tool_result
// blocks by id, wherever the result comes later in recs. Calls are in the
// order of their tool_use; pointers point into recs. Results whose id has
// no earlier unanswered tool_use are returned as orphans, in order: repair
// tools need both kinds of loose end. When an id is used twice, a result
// answers the later use.
func ToolCalls(recs []Record) (calls []ToolCall, orphans []ToolResult) {
	waiting := make(map[string]int) // tool_use id → index in calls
	for i := range recs {
		r := &recs[i]
		if r.Message == nil {
			continue
		}
		switch r.Type {
		case TypeAssistant:
			for _, b := range r.Message.Content.Blocks {
				if b.Type == BlockToolUse {
					waiting[b.ID] = len(calls)
					calls = append(calls, ToolCall{ID: b.ID, Name: b.Name, Input: b.Input, Use: r})
				}
			}
		case TypeUser:
			for _, res := range results(r) {
				j, ok := waiting[res.ToolUseID]
				if !ok {
					orphans = append(orphans, res)
					continue
				}
				delete(waiting, res.ToolUseID)
				calls[j].Result = &res
			}
		}
	}
	return calls, orphans
}

// results returns the tool_result blocks of a user record.
func results(r *Record) []ToolResult {
	var out []ToolResult
	for _, b := range r.Message.Content.Blocks {
		if b.Type == BlockToolResult {
			out = append(out, ToolResult{ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError, Record: r})
		}
	}
	if len(out) == 1 {
		out[0].Structured = r.ToolUseResult
	}
	return out
}
