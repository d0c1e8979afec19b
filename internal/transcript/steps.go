package transcript

import (
	"strings"
	"time"
)

// Step is one action of the assistant inside a turn: a response — its
// text, its tool calls and their results — or a short run of responses
// where the later ones only call tools. A turn's first step also holds the
// user's prompt. Steps are what the archive keeps, searches and recalls:
// one prompt can drive hours of work, and the step is where a file was
// read or a test failed.
type Step struct {
	UserText      string     // the turn's prompt: on its first step only
	AssistantText string     // the text of its responses, separated by blank lines
	Items         []StepItem // its text and tool calls, in the order they were written
	// Calls are its tool calls, with their results. A call whose tool_use
	// was read before (Turn.Orphans) is here with its result only: Use is
	// nil, Name empty.
	Calls       []ToolCall
	Records     []*Record // its records, in file order; the first is where it starts
	Start, End  time.Time // the timestamps of its first and last records
	Interrupted bool      // the user interrupted the model
}

// StepItem is a piece of a step: the assistant's text, or a tool call.
type StepItem struct {
	Text string
	Call int // the index of the call in the step's Calls; -1 for text
}

// Bounds of a run of responses in one step: a response that only calls
// tools joins the step before it while that step has fewer than
// StepRun responses and fewer than StepBytes bytes of records, so that
// the words the assistant wrote stay with the calls they announced.
const (
	StepRun   = 4
	StepBytes = 16 << 10
)

// Steps cuts the turn into steps. The cut depends only on the records
// from a step's first line on, so that reading the transcript again from
// the start of its last step gives the same steps (the last one grown).
func (t Turn) Steps() []Step {
	hasText := map[string]bool{}
	for _, r := range t.Records {
		if r.Type == TypeAssistant && r.Message != nil && r.Message.ID != "" && len(appendTexts(nil, r.Message.Content.blocks())) > 0 {
			hasText[r.Message.ID] = true
		}
	}
	var steps []Step
	var responses, size int
	seen := map[string]bool{}
	stepOf := map[*Record]int{}
	for _, r := range t.Records {
		if r.Type == TypeAssistant && r.Message != nil && (r.Message.ID == "" || !seen[r.Message.ID]) {
			seen[r.Message.ID] = true
			textless := r.Message.ID != "" && !hasText[r.Message.ID] || r.Message.ID == "" && len(appendTexts(nil, r.Message.Content.blocks())) == 0
			join := len(steps) > 0 && (responses == 0 || textless && responses < StepRun && size < StepBytes)
			if !join {
				steps = append(steps, Step{})
				responses, size = 0, 0
			}
			responses++
		}
		if len(steps) == 0 {
			steps = append(steps, Step{})
		}
		s := &steps[len(steps)-1]
		s.add(r)
		size += len(r.Raw)
		stepOf[r] = len(steps) - 1
	}
	if len(steps) > 0 {
		steps[0].UserText = t.UserText
	}
	for _, c := range t.Calls {
		if i, ok := stepOf[c.Use]; ok {
			steps[i].Calls = append(steps[i].Calls, c)
		}
	}
	for _, o := range t.Orphans {
		if i, ok := stepOf[o.Record]; ok {
			steps[i].Calls = append(steps[i].Calls, ToolCall{ID: o.ToolUseID, Result: &o})
		}
	}
	for i := range steps {
		steps[i].items()
	}
	return steps
}

// callAt names a tool call by the line holding its tool_use and its id
// (an id can come twice in a transcript).
type callAt struct {
	use *Record
	id  string
}

func (s *Step) add(r *Record) {
	s.Records = append(s.Records, r)
	stretch(&s.Start, &s.End, r)
	if r.Type == TypeUser && r.Message != nil && isInterrupt(r.Message.Content.Text()) {
		s.Interrupted = true
	}
}

// items lists the step's text and calls in order, and joins its text.
func (s *Step) items() {
	calls := make(map[callAt]int, len(s.Calls))
	for i, c := range s.Calls {
		if c.Use == nil {
			calls[callAt{c.Result.Record, c.ID}] = i // an orphan, where its result is
		} else {
			calls[callAt{c.Use, c.ID}] = i
		}
	}
	var texts []string
	for _, r := range s.Records {
		if r.Type == TypeUser && r.Message != nil {
			for _, b := range r.Message.Content.Blocks {
				if i, ok := calls[callAt{r, b.ToolUseID}]; ok && b.Type == BlockToolResult && s.Calls[i].Use == nil {
					s.Items = append(s.Items, StepItem{Call: i})
				}
			}
		}
		if r.Type != TypeAssistant || r.Message == nil {
			continue
		}
		for _, b := range r.Message.Content.blocks() {
			switch {
			case b.Type == BlockText && strings.TrimSpace(b.Text) != "":
				text := strings.TrimSpace(b.Text)
				texts = append(texts, text)
				s.Items = append(s.Items, StepItem{Text: text, Call: -1})
			case b.Type == BlockToolUse:
				if i, ok := calls[callAt{r, b.ID}]; ok {
					s.Items = append(s.Items, StepItem{Call: i})
				}
			}
		}
	}
	s.AssistantText = strings.Join(texts, "\n\n")
}

// Offset is the byte offset of the step's first line, and Line its
// 1-based number; both 0 for a step without records.
func (s Step) Offset() (int64, int) {
	if len(s.Records) == 0 {
		return 0, 0
	}
	return s.Records[0].Offset, s.Records[0].Line
}
