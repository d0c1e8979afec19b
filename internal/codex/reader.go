package codex

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Reader reads rollout files for the archive (a transcript.TurnReader): it cuts them
// into turns — what the user typed, then every call, its output and exit
// status, and the model's text until the next thing they typed — and
// names the calls the way the archive knows them: a shell command is a
// Bash call {"command"}, each file an apply_patch touches an Edit (Write
// for a new file) {"file_path"}, update_plan a TodoWrite, an MCP tool
// mcp__server__tool; other tools keep their name and arguments.
type Reader struct{}

var _ transcript.TurnReader = Reader{}

// Read reads the rollout at path from the cursor on, within lim.
func (Reader) Read(path string, from transcript.Cursor, usage ctxkeep.Usage, lim transcript.ReadLimits) (*transcript.TurnsRead, error) {
	// Rollout lines are JSON objects one per line, like Claude Code's
	// transcripts: the transcript scanner reads them, keeping each line's
	// bytes, cursor and timestamp; the payload is decoded here.
	f, err := transcript.ReadFileLimited(path, from, lim)
	if err != nil {
		return nil, err
	}
	b := builder{out: &transcript.TurnsRead{Next: f.Next, Problems: len(f.Problems), Usage: usage, More: f.More}, confirmed: map[string]bool{},
		path: path, from: from.Offset}
	for i := range f.Records {
		r := &f.Records[i]
		kind, p, ok := decode(r.Raw)
		if !ok {
			b.out.Problems++
			continue
		}
		takeUsage(&b.out.Usage, kind, &p, r.Timestamp)
		b.take(kind, &p, r)
	}
	b.finish()
	return b.out, nil
}

// builder assembles turns from lines.
type builder struct {
	out       *transcript.TurnsRead
	cur       *transcript.TurnAt
	assistant []reply
	cwd       string
	// path and from are the rollout and where the read started: a read
	// from inside a turn does not see its turn_context, so a relative
	// patch path looks for the folder before from, once (workdir).
	path       string
	from       int64
	lookedBack bool
	calls      map[string]int  // the current turn's calls, by call_id
	items      bool            // the client records items (item_completed)
	confirmed  map[string]bool // the model's messages it recorded as answers, by id
	// task is the cursor of the last task_started line not yet followed by
	// a prompt: a turn starts there, so that reading from its cursor again
	// sees its turn_context (the cwd its patches are relative to).
	task *transcript.Cursor
	// pieces are the current turn's messages and calls in the order the
	// model wrote them, from which finish cuts its steps.
	pieces []piece
}

// piece is a message of the model (text, an index in builder.assistant)
// or a call (calls of the turn's Calls from call on: apply_patch gives one
// per file), where its line is.
type piece struct {
	text, call, calls int
	at                transcript.Cursor
	time              time.Time
}

func (b *builder) take(kind string, p *payload, r *transcript.Record) {
	switch kind {
	case lineSessionMeta, lineTurnContext:
		if p.Cwd != "" {
			b.cwd = p.Cwd
		}
		return
	case lineCompacted:
		b.out.Summaries = append(b.out.Summaries, transcript.SummaryAt{Text: p.Message, Time: r.Timestamp, Offset: r.Offset})
		if b.cur != nil {
			b.cur.Compacted = true
		}
		b.dropSummaryAnswer()
		return
	case lineResponseItem:
		b.responseItem(p, r)
	case lineEventMsg:
		b.event(p, r)
	default:
		return
	}
}

func (b *builder) responseItem(p *payload, r *transcript.Record) {
	switch p.Type {
	case "message":
		switch {
		case p.Role == "user" && p.isPrompt():
			b.open(r, strings.TrimSpace(p.text()))
		case p.Role == "assistant":
			if t := strings.TrimSpace(p.text()); t != "" {
				b.turn(r).Turn.End = r.Timestamp
				b.pieces = append(b.pieces, piece{text: len(b.assistant), call: -1, at: cursorOf(r), time: r.Timestamp})
				b.assistant = append(b.assistant, reply{id: p.ID, text: t})
			}
		}
	case "function_call":
		b.call(r, p.CallID, toolName(p.Name, p.Namespace), []byte(p.Arguments))
	case "custom_tool_call":
		b.call(r, p.CallID, p.Name, nil, p.Input)
	case "function_call_output", "custom_tool_call_output":
		if c := b.callOf(p.CallID); c != nil && c.Result == nil {
			c.Result = &transcript.ToolResult{ToolUseID: p.CallID, Content: transcript.Content{String: p.outputText()}}
		}
		b.touch(r)
	}
}

func (b *builder) event(p *payload, r *transcript.Record) {
	switch p.Type {
	case "item_completed":
		it := p.Item
		if it == nil {
			return
		}
		b.items = true
		if it.Type == "AgentMessage" {
			b.confirmed[it.ID] = true
		}
		if it.Type != "CommandExecution" || it.AggregatedOutput == nil {
			return
		}
		// The command's own output and status, where the function call's
		// output holds what the model saw (Codex's header, or a view).
		if c := b.callOf(it.ID); c != nil {
			c.Result = &transcript.ToolResult{ToolUseID: it.ID, Content: transcript.Content{String: *it.AggregatedOutput},
				Exit: it.ExitCode, IsError: it.ExitCode != nil && *it.ExitCode != 0}
		}
	case "turn_aborted":
		if b.cur != nil {
			b.cur.Interrupted = true
		}
	case "task_started":
		at := cursorOf(r)
		b.task = &at
	}
}

// open starts a turn at a prompt (at its task's first line).
func (b *builder) open(r *transcript.Record, text string) {
	b.finish()
	at := cursorOf(r)
	if b.task != nil {
		at, b.task = *b.task, nil
	}
	b.out.Turns = append(b.out.Turns, transcript.TurnAt{
		Turn: transcript.Turn{UserText: text, Start: r.Timestamp, End: r.Timestamp},
		At:   at,
	})
	b.cur = &b.out.Turns[len(b.out.Turns)-1]
	b.calls = nil
}

// callOf is the current turn's call with id, or nil.
func (b *builder) callOf(id string) *transcript.ToolCall {
	i, ok := b.calls[id]
	if !ok || b.cur == nil {
		return nil
	}
	return &b.cur.Calls[i]
}

// turn is the current turn, opening one without a prompt for lines before
// the first (a rollout read from the middle).
func (b *builder) turn(r *transcript.Record) *transcript.TurnAt {
	if b.cur == nil {
		b.out.Turns = append(b.out.Turns, transcript.TurnAt{
			Turn: transcript.Turn{Start: r.Timestamp},
			At:   cursorOf(r),
		})
		b.cur = &b.out.Turns[len(b.out.Turns)-1]
	}
	return b.cur
}

func (b *builder) touch(r *transcript.Record) {
	if t := b.turn(r); !r.Timestamp.IsZero() {
		t.End = r.Timestamp
	}
}

// reply is one message of the model.
type reply struct{ id, text string }

// dropSummaryAnswer forgets the model's last message when the client did
// not record it as an answer (item_completed AgentMessage, written with
// each): before a compaction, that is the answer to the compaction
// request — the summary, recorded as a message of the model. A client that
// records no item at all (an older one) keeps it.
func (b *builder) dropSummaryAnswer() {
	if n := len(b.assistant); n > 0 && b.items && !b.confirmed[b.assistant[n-1].id] {
		b.assistant = b.assistant[:n-1]
		b.pieces = slices.DeleteFunc(b.pieces, func(p piece) bool { return p.text == n-1 })
	}
}

// finish closes the current turn with the model's text.
func (b *builder) finish() {
	if b.cur == nil {
		return
	}
	texts := make([]string, len(b.assistant))
	for i, m := range b.assistant {
		texts[i] = m.text
	}
	b.cur.AssistantText = strings.Join(texts, "\n\n")
	b.cur.Steps = b.steps()
	b.cur, b.assistant, b.calls, b.pieces = nil, nil, nil, nil
}

// steps cuts the current turn into steps as transcript.Turn.Steps cuts a
// Claude Code turn: the model's words start a step and the calls they
// announce join it, up to transcript.StepRun calls and StepBytes bytes of
// input and output; past that, a call starts a step of its own. The cut
// depends only on what came before, so that reading the turn again, grown,
// gives the same steps (the last one grown). nil for a turn without a
// message or call.
func (b *builder) steps() []transcript.StepAt {
	t := b.cur
	var out []transcript.StepAt
	var calls, size int
	for _, p := range b.pieces {
		isText := p.call < 0
		if len(out) == 0 || isText && calls > 0 || !isText && (calls >= transcript.StepRun || size >= transcript.StepBytes) {
			out = append(out, transcript.StepAt{Step: transcript.Step{Start: p.time}, At: p.at})
			calls, size = 0, 0
		}
		st := &out[len(out)-1].Step
		if !p.time.IsZero() {
			st.End = p.time
		}
		if isText {
			text := b.assistant[p.text].text
			st.Items = append(st.Items, transcript.StepItem{Text: text, Call: -1})
			st.AssistantText = strings.TrimPrefix(st.AssistantText+"\n\n"+text, "\n\n")
			continue
		}
		for _, c := range t.Calls[p.call : p.call+p.calls] {
			st.Items = append(st.Items, transcript.StepItem{Call: len(st.Calls)})
			st.Calls = append(st.Calls, c)
			size += len(c.Input)
			if c.Result != nil {
				size += len(c.Result.Content.String)
			}
		}
		calls++
	}
	if len(out) == 0 {
		return nil
	}
	out[0].UserText, out[0].Start, out[0].At = t.UserText, t.Start, t.At
	out[len(out)-1].Interrupted = t.Interrupted
	return out
}

// call adds a tool call to the current turn, in the archive's names.
func (b *builder) call(r *transcript.Record, id, name string, args json.RawMessage, freeform ...string) {
	t := b.turn(r)
	b.touch(r)
	if b.calls == nil {
		b.calls = map[string]int{}
	}
	b.calls[id] = len(t.Calls) // the first of the calls carries the result
	calls := b.translate(id, name, args, freeform)
	b.pieces = append(b.pieces, piece{text: -1, call: len(t.Calls), calls: len(calls), at: cursorOf(r), time: r.Timestamp})
	t.Calls = append(t.Calls, calls...)
}

// translate names a call the way the archive reads calls.
func (b *builder) translate(id, name string, args json.RawMessage, freeform []string) []transcript.ToolCall {
	switch {
	case isShell(name):
		return []transcript.ToolCall{{ID: id, Name: Shell, Input: shellInput(args)}}
	case name == "apply_patch":
		patch := ""
		if len(freeform) > 0 {
			patch = freeform[0]
		} else {
			var in struct {
				Input string `json:"input"`
			}
			json.Unmarshal(args, &in)
			patch = in.Input
		}
		return b.patchCalls(id, patch)
	case name == "update_plan":
		return []transcript.ToolCall{{ID: id, Name: "TodoWrite", Input: planTodos(args)}}
	}
	return []transcript.ToolCall{{ID: id, Name: name, Input: callInput(args, strings.Join(freeform, ""))}}
}

// isShell reports whether a function call runs a shell command.
func isShell(name string) bool {
	return name == "exec_command" || name == "shell" || name == "shell_command" || name == "local_shell"
}

// shellInput is a shell call's input as hooks give it: {"command"}.
func shellInput(args json.RawMessage) json.RawMessage {
	return mustJSON(map[string]string{"command": shellCommand(args)})
}

// callInput is another call's input: its arguments, or {"input"} holding
// a freeform call's text (or arguments that are not JSON).
func callInput(args json.RawMessage, freeform string) json.RawMessage {
	if len(args) == 0 || !json.Valid(args) {
		return mustJSON(map[string]string{"input": freeform})
	}
	return args
}

// toolName is a function call's name as hooks and the archive know it: an
// MCP tool's is mcp__<server>__<tool>, its namespace being mcp__<server>.
func toolName(name, namespace string) string {
	if strings.HasPrefix(namespace, "mcp__") && !strings.HasPrefix(name, "mcp__") {
		return namespace + "__" + name
	}
	return name
}

// shellCommand is the command line of a shell call: exec_command's cmd,
// shell_command's command, or shell's argv (["bash", "-lc", CMD] is CMD;
// other words are quoted where a shell would split or expand them).
func shellCommand(args json.RawMessage) string {
	var in struct {
		Cmd     string          `json:"cmd"`
		Command json.RawMessage `json:"command"`
	}
	json.Unmarshal(args, &in)
	if in.Cmd != "" {
		return in.Cmd
	}
	var s string
	if json.Unmarshal(in.Command, &s) == nil {
		return s
	}
	var argv []string
	json.Unmarshal(in.Command, &argv)
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = claudecode.ShellQuote(a) // read back as the same words: ["git", "commit", "-m", "fix it"]
	}
	return strings.Join(words, " ")
}

// patchCalls is one Edit (Write for an added file) per file a patch
// touches, the first carrying the call's id and result.
func (b *builder) patchCalls(id, patch string) []transcript.ToolCall {
	var calls []transcript.ToolCall
	for _, line := range strings.Split(patch, "\n") {
		name, path := "", ""
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			name, path = "Write", strings.TrimPrefix(line, "*** Add File: ")
		case strings.HasPrefix(line, "*** Update File: "):
			name, path = "Edit", strings.TrimPrefix(line, "*** Update File: ")
		case strings.HasPrefix(line, "*** Delete File: "):
			name, path = "Edit", strings.TrimPrefix(line, "*** Delete File: ")
		case strings.HasPrefix(line, "*** Move to: "):
			name, path = "Edit", strings.TrimPrefix(line, "*** Move to: ")
		default:
			continue
		}
		path = strings.TrimSpace(path)
		if cwd := b.workdir(); !filepath.IsAbs(path) && cwd != "" {
			path = filepath.Join(cwd, path)
		}
		callID := id
		if len(calls) > 0 {
			callID = id + "#" + path
		}
		calls = append(calls, transcript.ToolCall{ID: callID, Name: name, Input: mustJSON(map[string]string{"file_path": path})})
	}
	if len(calls) == 0 {
		calls = append(calls, transcript.ToolCall{ID: id, Name: "apply_patch", Input: mustJSON(map[string]string{"input": patch})})
	}
	return calls
}

// planTodos turns update_plan's {"plan": [{"step", "status"}]} into a
// TodoWrite's {"todos": [{"content", "status"}]}: the task list of the
// working state.
func planTodos(args json.RawMessage) json.RawMessage {
	var in struct {
		Plan []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
	}
	json.Unmarshal(args, &in)
	todos := make([]ctxkeep.Todo, 0, len(in.Plan))
	for _, s := range in.Plan {
		todos = append(todos, ctxkeep.Todo{Content: s.Step, Status: s.Status})
	}
	return mustJSON(map[string]any{"todos": todos})
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// cursorOf is where r starts: the cursor that reads it first.
func cursorOf(r *transcript.Record) transcript.Cursor {
	return transcript.Cursor{Offset: r.Offset, Line: r.Line - 1}
}

// workdir is the folder relative paths of the current turn are in: the
// last turn_context read, else the last one before the read started.
func (b *builder) workdir() string {
	if b.cwd == "" && !b.lookedBack && b.from > 0 {
		b.cwd, b.lookedBack = cwdBefore(b.path, b.from), true
	}
	return b.cwd
}

// cwdSearch bounds how far back cwdBefore looks for the folder a turn
// works in.
const cwdSearch = 4 << 20

// cwdBefore is the working folder the last turn_context (or the
// session_meta) before offset names, looking back at most cwdSearch
// bytes; "" if none: the paths of patches then stay as Codex wrote them.
func cwdBefore(path string, offset int64) string {
	f, _, err := fsx.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	cwd := ""
	transcript.ScanBack(f, offset, cwdSearch, 1<<20, func(line []byte) bool {
		if !bytes.Contains(line, []byte(`"turn_context"`)) && !bytes.Contains(line, []byte(`"session_meta"`)) {
			return true
		}
		if kind, p, ok := decode(line); ok && (kind == lineTurnContext || kind == lineSessionMeta) && p.Cwd != "" {
			cwd = p.Cwd
			return false
		}
		return true
	})
	return cwd
}
