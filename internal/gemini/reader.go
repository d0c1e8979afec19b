package gemini

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Reader reads chat files for the archive (a transcript.TurnReader): it
// cuts them into turns — what the user typed, then the model's messages,
// each with its text and its calls, their results and exit status, until
// the next thing the user typed — and names the calls the way the archive
// knows them (ClaudeName): run_shell_command is a Bash call {"command"},
// read_file a Read {"file_path"}, write_file a Write, replace an Edit,
// write_todos a TodoWrite; other tools keep their name and arguments. A
// compression's <state_snapshot> is the turn's summary.
type Reader struct{}

var _ transcript.TurnReader = Reader{}

// Read reads the chat at path from the cursor on, within lim.
func (Reader) Read(path string, from transcript.Cursor, usage ctxkeep.Usage, lim transcript.ReadLimits) (*transcript.TurnsRead, error) {
	f, err := transcript.ReadFileLimited(path, from, lim)
	if err != nil {
		return nil, err
	}
	b := builder{out: &transcript.TurnsRead{Next: f.Next, Usage: usage, More: f.More}}
	for _, p := range f.Problems {
		if p.Kind != transcript.BadField { // Claude Code's fields, not Gemini's: the line itself is read here
			b.out.Problems++
		}
	}
	for i := range f.Records {
		r := &f.Records[i]
		rec, ok := decodeRecord(r.Raw)
		if !ok {
			b.out.Problems++
			continue
		}
		takeUsage(&b.out.Usage, &rec)
		b.take(&rec, r)
	}
	b.finish()
	return b.out, nil
}

// builder assembles turns from records.
type builder struct {
	out *transcript.TurnsRead
	cur *transcript.TurnAt
	// msgs are the current turn's model messages in the order they were
	// first written; at is where each id is in msgs: a message written
	// again replaces its content there.
	msgs []message
	at   map[string]int
}

// message is one model message: its words and its calls.
type message struct {
	id    string
	text  string
	calls []toolCall
	line  transcript.Cursor
	time  time.Time
}

func (b *builder) take(rec *record, r *transcript.Record) {
	switch {
	case rec.isHeader():
	case rec.Set != nil:
		if s := rec.snapshot(); s != "" {
			b.out.Summaries = append(b.out.Summaries, transcript.SummaryAt{Text: s, Time: r.Timestamp, Offset: r.Offset})
			if b.cur != nil {
				b.cur.Compacted = true
			}
		}
	case rec.Type == "user":
		if text, ok := rec.prompt(); ok {
			b.open(r, rec, text)
			return
		}
		b.touch(r, rec)
	case rec.Type == "gemini":
		b.model(r, rec)
	}
}

// open starts a turn at a prompt.
func (b *builder) open(r *transcript.Record, rec *record, text string) {
	b.finish()
	t := rec.time()
	b.out.Turns = append(b.out.Turns, transcript.TurnAt{
		Turn: transcript.Turn{UserText: text, Start: t, End: t},
		At:   cursorOf(r),
	})
	b.cur = &b.out.Turns[len(b.out.Turns)-1]
}

// turn is the current turn, opening one without a prompt for records
// before the first (a chat read from inside a turn).
func (b *builder) turn(r *transcript.Record, rec *record) *transcript.TurnAt {
	if b.cur == nil {
		b.out.Turns = append(b.out.Turns, transcript.TurnAt{
			Turn: transcript.Turn{Start: rec.time()},
			At:   cursorOf(r),
		})
		b.cur = &b.out.Turns[len(b.out.Turns)-1]
	}
	return b.cur
}

func (b *builder) touch(r *transcript.Record, rec *record) {
	if b.cur == nil {
		return
	}
	if t := rec.time(); !t.IsZero() && t.After(b.cur.End) {
		b.cur.End = t
	}
}

// model takes a model message, or a later writing of one.
func (b *builder) model(r *transcript.Record, rec *record) {
	t := b.turn(r, rec)
	b.touch(r, rec)
	m := message{id: rec.ID, text: strings.TrimSpace(rec.text()), calls: rec.ToolCalls, line: cursorOf(r), time: rec.time()}
	if i, ok := b.at[rec.ID]; ok && rec.ID != "" {
		m.line, m.time = b.msgs[i].line, b.msgs[i].time
		b.msgs[i] = m
		return
	}
	if b.at == nil {
		b.at = map[string]int{}
	}
	b.at[rec.ID] = len(b.msgs)
	b.msgs = append(b.msgs, m)
	if t.Start.IsZero() {
		t.Start = m.time
	}
}

// finish closes the current turn: its text, its calls, its steps.
func (b *builder) finish() {
	t := b.cur
	if t == nil {
		return
	}
	var texts []string
	for _, m := range b.msgs {
		if m.text != "" {
			texts = append(texts, m.text)
		}
		for _, c := range m.calls {
			t.Calls = append(t.Calls, translate(c))
		}
	}
	t.AssistantText = strings.Join(texts, "\n\n")
	t.Steps = b.steps()
	b.cur, b.msgs, b.at = nil, nil, nil
}

// steps cuts the current turn into steps as transcript.Turn.Steps cuts a
// Claude Code turn: the model's words start a step, and messages that
// only call tools join it, up to transcript.StepRun calls and StepBytes
// bytes of input and output. A message stays whole in one step (its words
// and calls are on one line, where a step read again starts). The cut
// depends only on what came before, so that reading the turn again from a
// step's line gives the same steps (the last one grown).
func (b *builder) steps() []transcript.StepAt {
	t := b.cur
	var out []transcript.StepAt
	var calls, size int
	for _, m := range b.msgs {
		if m.text == "" && len(m.calls) == 0 {
			continue
		}
		if len(out) == 0 || m.text != "" && calls > 0 || m.text == "" && (calls >= transcript.StepRun || size >= transcript.StepBytes) {
			out = append(out, transcript.StepAt{Step: transcript.Step{Start: m.time}, At: m.line})
			calls, size = 0, 0
		}
		st := &out[len(out)-1].Step
		if !m.time.IsZero() {
			st.End = m.time
		}
		if m.text != "" {
			st.Items = append(st.Items, transcript.StepItem{Text: m.text, Call: -1})
			st.AssistantText = strings.TrimPrefix(st.AssistantText+"\n\n"+m.text, "\n\n")
		}
		for _, c := range m.calls {
			tc := translate(c)
			st.Items = append(st.Items, transcript.StepItem{Call: len(st.Calls)})
			st.Calls = append(st.Calls, tc)
			size += len(tc.Input)
			if tc.Result != nil {
				size += len(tc.Result.Content.String)
			}
			calls++
		}
	}
	if len(out) == 0 {
		return nil
	}
	out[0].UserText, out[0].Start, out[0].At = t.UserText, t.Start, t.At
	out[len(out)-1].Interrupted = t.Interrupted
	return out
}

// translate is a call in the archive's names, with its result: the shell's
// own output and exit status, or what the model got.
func translate(c toolCall) transcript.ToolCall {
	out := transcript.ToolCall{ID: c.ID, Name: ClaudeName(c.Name), Input: callInput(c.Name, c.Args)}
	text, failed, ok := c.resultText()
	if !ok {
		return out
	}
	res := &transcript.ToolResult{ToolUseID: c.ID, Content: transcript.Content{String: text}, IsError: failed}
	if IsView(text) {
		// ctxkeep's view stood in for the output (a deny, as an error):
		// the command did not fail for that.
		res.IsError = false
		if code, ok := viewExit(text); ok {
			res.Exit = &code
		}
	} else if c.Name == Shell {
		output, code := ShellOutput(text)
		res.Content.String = output
		if code >= 0 {
			res.Exit = &code
			res.IsError = failed || code != 0
		}
	}
	out.Result = res
	return out
}

// ViewPrefix starts every view ctxkeep puts in place of an output.
const ViewPrefix = "[ctxkeep]"

// IsView reports whether a result is ctxkeep's view of an output.
func IsView(text string) bool { return strings.HasPrefix(text, ViewPrefix) }

var viewExitRE = regexp.MustCompile(`; exit status (-?\d+)\.`)

// viewExit reads the exit status a view's first line gives.
func viewExit(view string) (int, bool) {
	first, _, _ := strings.Cut(view, "\n")
	m := viewExitRE.FindStringSubmatch(first)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// callInput is a call's arguments as the archive reads them: {"command"}
// for the shell, {"file_path"} for the file tools (Gemini's arguments
// name it file_path, or absolute_path in older versions), TodoWrite's
// {"todos"}; other tools' arguments as they are.
func callInput(name string, args json.RawMessage) json.RawMessage {
	var in map[string]any
	if json.Unmarshal(args, &in) != nil {
		in = map[string]any{}
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := in[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	switch name {
	case Shell:
		return mustJSON(map[string]string{"command": str("command")})
	case ReadFile, WriteFile, Replace:
		out := map[string]any{}
		for k, v := range in {
			out[k] = v
		}
		delete(out, "absolute_path")
		out["file_path"] = str("file_path", "absolute_path", "path")
		return mustJSON(out)
	case WriteTodos:
		var todos struct {
			Todos []struct {
				Description string `json:"description"`
				Status      string `json:"status"`
			} `json:"todos"`
		}
		json.Unmarshal(args, &todos)
		list := make([]ctxkeep.Todo, 0, len(todos.Todos))
		for _, td := range todos.Todos {
			status := td.Status
			if status == "cancelled" {
				status = "completed" // no longer to do
			}
			list = append(list, ctxkeep.Todo{Content: td.Description, Status: status})
		}
		return mustJSON(map[string]any{"todos": list})
	}
	if len(args) == 0 || !json.Valid(args) {
		return json.RawMessage("{}")
	}
	return args
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// cursorOf is where r starts: the cursor that reads it first.
func cursorOf(r *transcript.Record) transcript.Cursor {
	return transcript.Cursor{Offset: r.Offset, Line: r.Line - 1}
}

// ErrNotChat means a file is not a Gemini CLI chat.
var ErrNotChat = errors.New("not a Gemini CLI chat (no session header on its first line)")
