// Package breakdown tells where a session's context went: what the model
// is being sent now, by category and by tool, how much of it is stale tool
// output, how soon the next auto-compaction comes at the recent rate, and
// how the context grew and shrank across the whole session, with
// compactions and ctxkeep's swaps marked, as a terminal chart and as a
// self-contained HTML page.
//
// The total is exact (the usage the client recorded, §8.3); the split by
// category is an estimate with an offline tokenizer, since the API reports
// one figure per request. This package is for the CLI: it loads a
// tokenizer, which the hook path never does.
package breakdown

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Category names.
const (
	User       = "user"        // what the user typed (and client text sent as the user)
	Assistant  = "assistant"   // the model's text
	Thinking   = "thinking"    // the model's thinking blocks
	ToolUse    = "tool_use"    // tool requests: name and input, by tool
	ToolResult = "tool_result" // tool outputs, by tool
	Injected   = "injected"    // hook context, reminders, client attachments
	Image      = "image"       // images, counted as the client counts them
	Summary    = "summary"     // the compaction summary
)

// Label is a category's name for people.
func Label(name string) string {
	switch name {
	case User:
		return "user text"
	case Assistant:
		return "assistant text"
	case Thinking:
		return "thinking"
	case ToolUse:
		return "tool requests"
	case ToolResult:
		return "tool results"
	case Injected:
		return "hook context & reminders"
	case Image:
		return "images"
	case Summary:
		return "compaction summary"
	}
	return name
}

// Category is one part of the context. Tool requests and results have one
// Category per tool; Tool is empty for the others.
type Category struct {
	Name   string `json:"name"`
	Tool   string `json:"tool,omitempty"`
	Items  int    `json:"items"`  // blocks (records for injected context)
	Chars  int64  `json:"chars"`  // characters; 0 for images
	Tokens int64  `json:"tokens"` // tokenizer count, without the safety margin
}

// tally accumulates categories and remembers each tool result's tokens.
type tally struct {
	count   Counter
	cats    map[[2]string]*Category
	results map[string]int64 // tool_use id → tokens of its result
}

func newTally(c Counter) *tally {
	return &tally{count: c, cats: map[[2]string]*Category{}, results: map[string]int64{}}
}

func (t *tally) add(name, tool, text string) int64 {
	c := t.cat(name, tool)
	n := int64(t.count.Count(text))
	c.Items++
	c.Chars += Runes(text)
	c.Tokens += n
	return n
}

func (t *tally) image() {
	c := t.cat(Image, "")
	c.Items++
	c.Tokens += ImageTokens
}

func (t *tally) cat(name, tool string) *Category {
	k := [2]string{name, tool}
	if c := t.cats[k]; c != nil {
		return c
	}
	c := &Category{Name: name, Tool: text.Printable(tool)} // a tool's name is the model's to write: shown as a terminal shows it
	t.cats[k] = c
	return c
}

// sorted returns the categories, largest first.
func (t *tally) sorted() []Category {
	out := make([]Category, 0, len(t.cats))
	for _, c := range t.cats {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Category) int {
		if a.Tokens != b.Tokens {
			return int(b.Tokens - a.Tokens)
		}
		return strings.Compare(a.Name+a.Tool, b.Name+b.Tool)
	})
	return out
}

// Categorize splits records the model is sent (a Live view) into
// categories, and returns each tool result's token count by tool_use id.
//
//   - user records: a compaction summary is Summary; client-written
//     (isMeta) text is Injected; other text is User; tool_result blocks
//     are ToolResult under the tool that was called; images are Image;
//   - assistant records: text, thinking and tool_use blocks (name and
//     input); redacted thinking carries no text and is not counted;
//   - attachment records: what the client renders for the model, Injected;
//   - system records (boundaries, hook summaries) are not sent.
func Categorize(live []transcript.Record, c Counter) ([]Category, map[string]int64) {
	t := newTally(c)
	calls, _ := transcript.ToolCalls(live)
	tools := make(map[string]string, len(calls))
	for _, call := range calls {
		tools[call.ID] = call.Name
	}
	for i := range live {
		r := &live[i]
		switch r.Type {
		case transcript.TypeUser:
			t.user(r, tools)
		case transcript.TypeAssistant:
			t.assistant(r)
		case transcript.TypeAttachment:
			if text := Rendered(r); text != "" {
				t.add(Injected, "", text)
			}
		}
	}
	return t.sorted(), t.results
}

func (t *tally) user(r *transcript.Record, tools map[string]string) {
	if r.Message == nil {
		return
	}
	name := User
	switch {
	case r.IsCompactSummary:
		name = Summary
	case r.IsMeta:
		name = Injected
	}
	c := r.Message.Content
	if c.Blocks == nil {
		if c.String != "" {
			t.add(name, "", c.String)
		}
		return
	}
	for _, b := range c.Blocks {
		switch b.Type {
		case transcript.BlockText:
			t.add(name, "", b.Text)
		case transcript.BlockImage:
			t.image()
		case transcript.BlockToolResult:
			t.result(b, tools[b.ToolUseID])
		}
	}
}

// result counts a tool_result block's text and images.
func (t *tally) result(b transcript.Block, tool string) {
	if tool == "" {
		tool = "(unknown)"
	}
	text := b.Content.String
	for _, inner := range b.Content.Blocks {
		switch inner.Type {
		case transcript.BlockText:
			text += inner.Text
		case transcript.BlockImage:
			t.image()
		}
	}
	t.results[b.ToolUseID] += t.add(ToolResult, tool, text)
}

func (t *tally) assistant(r *transcript.Record) {
	if r.Message == nil || r.Message.Model == transcript.SyntheticModel {
		return
	}
	c := r.Message.Content
	if c.Blocks == nil && c.String != "" {
		t.add(Assistant, "", c.String)
		return
	}
	for _, b := range c.Blocks {
		switch b.Type {
		case transcript.BlockText:
			t.add(Assistant, "", b.Text)
		case transcript.BlockThinking:
			t.add(Thinking, "", b.Thinking)
		case transcript.BlockToolUse:
			t.add(ToolUse, b.Name, b.Name+string(b.Input))
		}
	}
}

// Rendered returns what the client sends the model for an attachment
// record: its "rendered" text, which is a string or a list of
// {"content": …} or {"text": …} items (claude-code-hooks.md §8.2).
func Rendered(r *transcript.Record) string {
	var w struct {
		Rendered json.RawMessage `json:"rendered"`
	}
	if json.Unmarshal(r.Raw, &w) != nil || len(w.Rendered) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(w.Rendered, &s) == nil {
		return s
	}
	var items []struct {
		Content json.RawMessage `json:"content"`
		Text    string          `json:"text"`
	}
	if json.Unmarshal(w.Rendered, &items) != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range items {
		var c string
		if json.Unmarshal(it.Content, &c) != nil {
			c = it.Text
		}
		b.WriteString(c)
	}
	return b.String()
}
