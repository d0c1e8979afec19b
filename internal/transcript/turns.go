package transcript

import (
	"strings"
	"time"
)

// Turn is one exchange of the main conversation: something the user asked
// and everything until the next thing they asked.
type Turn struct {
	// Prompt is the user record that opened the turn; nil for the records
	// before the first prompt (a resumed session, or a Live view, which
	// starts at a compaction).
	Prompt        *Record
	UserText      string     // what the user typed; "/name args" for a prompt command
	AssistantText string     // the text of the turn's responses, in order, separated by blank lines
	Calls         []ToolCall // the tool calls made in the turn, with their results
	// Orphans are results whose tool_use is not among the records given:
	// a read that starts inside a step (one longer than a read may be) has
	// the results of calls read before.
	Orphans     []ToolResult
	Records     []*Record // the turn's conversation records, in order
	Start, End  time.Time // the timestamps of its first and last records
	Interrupted bool      // the user interrupted the model
	Compacted   bool      // a compaction happened during the turn
}

// Turns cuts the main conversation in recs into turns; pointers point
// into recs. Give it the records of a file for everything ever said, or a
// Live view for what the model sees now.
//
// A turn opens at a user record with something the user typed, that is
// one that is not:
//   - written by the client: isMeta (skill and command expansions, caveats,
//     reminders) or the compact summary;
//   - a tool_result carrier;
//   - a client wrapper: text starting with <local-command-…>,
//     <command-name>, <command-message>, <bash-…>, <task-notification>
//     (a background task finished), <system-reminder>, or an
//     "[Request interrupted by user…]" marker.
//
// One wrapper does open a turn: a slash command that the model is asked
// to answer (a custom command or skill), which the client follows with the
// command's expanded prompt, a meta user record. Local commands (/compact,
// /mcp, /context) are followed by their output instead, and open none.
func Turns(recs []Record) []Turn {
	var conv []*Record
	for i := range recs {
		if r := &recs[i]; r.MainThread() && r.conversational() {
			conv = append(conv, r)
		}
	}
	var turns []Turn
	turnOf := make(map[*Record]int, len(conv))
	for i, r := range conv {
		if text, ok := prompt(conv, i); ok {
			turns = append(turns, Turn{Prompt: r, UserText: text})
		} else if len(turns) == 0 {
			turns = append(turns, Turn{})
		}
		turns[len(turns)-1].add(r)
		turnOf[r] = len(turns) - 1
	}
	calls, orphans := ToolCalls(recs)
	for _, c := range calls {
		if t, ok := turnOf[c.Use]; ok {
			turns[t].Calls = append(turns[t].Calls, c)
		}
	}
	for _, o := range orphans {
		if t, ok := turnOf[o.Record]; ok {
			turns[t].Orphans = append(turns[t].Orphans, o)
		}
	}
	for i := range turns {
		turns[i].AssistantText = assistantText(turns[i].Records)
	}
	return turns
}

// add takes r into the turn.
func (t *Turn) add(r *Record) {
	t.Records = append(t.Records, r)
	stretch(&t.Start, &t.End, r)
	switch {
	case r.IsCompactBoundary():
		t.Compacted = true
	case r.Type == TypeUser && r.Message != nil && isInterrupt(r.Message.Content.Text()):
		t.Interrupted = true
	}
}

// stretch widens a span of time to r's timestamp, if it has one.
func stretch(start, end *time.Time, r *Record) {
	if !r.Timestamp.IsZero() {
		if start.IsZero() {
			*start = r.Timestamp
		}
		*end = r.Timestamp
	}
}

// assistantText joins the text of the assistant records by blank lines.
func assistantText(recs []*Record) string {
	var texts []string
	for _, r := range recs {
		if r.Type == TypeAssistant && r.Message != nil {
			texts = appendTexts(texts, r.Message.Content.blocks())
		}
	}
	return strings.Join(texts, "\n\n")
}

// prompt reports whether conv[i] opens a turn, and what the user typed.
func prompt(conv []*Record, i int) (string, bool) {
	r := conv[i]
	if r.Type != TypeUser || r.Message == nil || r.IsMeta || r.IsCompactSummary {
		return "", false
	}
	if cmd, ok := command(r.Message.Content.Text()); ok {
		return cmd, expanded(conv[i+1:])
	}
	var typed []string
	pasted := false
	for _, b := range r.Message.Content.blocks() {
		s := strings.TrimSpace(b.Text)
		switch {
		case b.Type == BlockText && s != "" && !fromClient(s):
			typed = append(typed, s)
		case b.Type == BlockImage:
			pasted = true
		}
	}
	return strings.Join(typed, "\n\n"), len(typed) > 0 || pasted
}

// clientPrefixes open the text the client writes into user messages by
// itself.
var clientPrefixes = []string{
	"<local-command-", "<command-name>", "<command-message>", "<command-args>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<task-notification>", "<system-reminder>", interruptPrefix,
}

const interruptPrefix = "[Request interrupted by user"

func fromClient(s string) bool {
	for _, p := range clientPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isInterrupt(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), interruptPrefix) }

// command returns "/name args" when s is a slash command's wrapper.
func command(s string) (string, bool) {
	if !strings.HasPrefix(strings.TrimSpace(s), "<command-") {
		return "", false
	}
	name, ok := element(s, "command-name")
	if !ok {
		return "", false
	}
	args, _ := element(s, "command-args")
	return strings.TrimSpace(name + " " + args), true
}

// element returns the text of the first <tag>…</tag> in s.
func element(s, tag string) (string, bool) {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return "", false
	}
	text, _, ok := strings.Cut(rest, "</"+tag+">")
	return strings.TrimSpace(text), ok
}

// expanded reports whether a slash command is followed by its expanded
// prompt: the next user record, before any response, is a meta record
// that is not itself a client wrapper (a local command's caveat is).
func expanded(next []*Record) bool {
	for _, r := range next {
		switch r.Type {
		case TypeAssistant:
			return false
		case TypeUser:
			return r.IsMeta && r.Message != nil && !fromClient(strings.TrimSpace(r.Message.Content.Text()))
		}
	}
	return false
}
