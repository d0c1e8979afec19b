package archive

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// maxPerTurn bounds each kind of thing kept from one step.
const maxPerTurn = 8

// turnMeta gathers a step's ctxkeep.Meta.
type turnMeta struct{ ctxkeep.Meta }

// extract reads what a step did. The failures of an output ctxkeep
// swapped out are read from the exact output: the transcript holds only
// the view, and the client cuts the middle out of a long failing output.
func extract(t transcript.Step, swapped map[string]Swapped) ctxkeep.Meta {
	var m turnMeta
	for _, call := range t.Calls {
		if call.Name == "" {
			continue // a result whose call was archived before
		}
		m.addTool(call.Name)
		text, ok := "", false
		if s, found := swapped[call.ID]; found && s.Text != "" {
			text, ok = s.Text, true
		} else if call.Result != nil {
			text, ok = call.Result.Text(), true
		}
		m.addCall(call, text, ok)
	}
	m.Decisions = decisions(t.AssistantText)
	m.Corrections = corrections(t.UserText)
	return m.Meta
}

func (m *turnMeta) addTool(name string) {
	for _, t := range m.Tools {
		if t == name {
			return
		}
	}
	m.Tools = append(m.Tools, name)
}

// addCall records a call; text is its output (has says whether there is
// one).
func (m *turnMeta) addCall(call transcript.ToolCall, text string, has bool) {
	in := claudecode.ParseInput(call.Input)
	switch call.Name {
	case "Read":
		m.FilesRead = moveLast(m.FilesRead, in.FilePath)
		if in.FilePath != "" && (in.Offset > 0 || in.Limit > 0) && len(m.Ranges) < 4*maxPerTurn {
			r := ctxkeep.LineRange{Path: in.FilePath, From: max(in.Offset, 1)}
			if in.Limit > 0 {
				r.To = r.From + in.Limit - 1
			}
			m.Ranges = append(m.Ranges, r)
		}
	case "Write", "Edit", "MultiEdit":
		m.FilesModified = moveLast(m.FilesModified, in.FilePath)
	case "NotebookEdit":
		var nb struct {
			Path string `json:"notebook_path"`
		}
		json.Unmarshal(call.Input, &nb)
		m.FilesModified = moveLast(m.FilesModified, nb.Path)
	case "Bash":
		m.addCommand(in.Command, call.Result, text)
		if call.Result != nil && exitStatus(call.Result) == 0 {
			m.Tasks = append(m.Tasks, trackerEvents(in.Command, text)...)
		}
	case "TaskCreate", "TaskUpdate", "TodoWrite":
		if e, ok := taskEvent(call); ok {
			m.Tasks = append(m.Tasks, e)
		}
	}
	if has && swap.HasFailures(call.Name) && call.Name != "Bash" {
		m.addErrors(errorLines(text, 3))
	}
}

func (m *turnMeta) addCommand(run string, r *transcript.ToolResult, text string) {
	if run == "" || len(m.Commands) >= 3*maxPerTurn {
		return
	}
	c := ctxkeep.Command{Run: short(run, 300), Group: short(RunGroup(run), 300), Exit: -1}
	if r != nil {
		c.Exit = exitStatus(r)
		outcome := swap.ReadRun(run, text)
		c.Outcome = outcome.Outcome(c.Exit)
		c.Result = resultLine(outcome, text)
		if !outcome.Passing(c.Exit) { // a passing run's error-looking lines are noise
			c.Errors = errorLines(text, 3)
			m.addErrors(c.Errors)
		}
	}
	m.Commands = append(m.Commands, c)
}

func (m *turnMeta) addErrors(lines []string) {
	for _, l := range lines {
		if len(m.Errors) < maxPerTurn {
			m.Errors = appendNew(m.Errors, l)
		}
	}
}

// resultLine is an output's result line: the runner's summary line when a
// known runner printed one, else its last line that reads as a result
// (a count of issues, errors, warnings, files…), else its last line that
// is not blank (the client's "Exit code N" line aside), as a terminal
// shows it, shortened.
func resultLine(r swap.Run, output string) string {
	if r.Summary.N > 0 {
		return short(r.Summary.Text, maxResult)
	}
	lines := strings.Split(printable(output), "\n")
	last := ""
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-40; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || i == 0 && strings.HasPrefix(l, "Exit code ") {
			continue
		}
		if last == "" {
			last = l
		}
		if readsAsResult(l) {
			return short(l, maxResult)
		}
	}
	return short(last, maxResult)
}

// readsAsResult reports whether a line reads as an account of a run: a
// number and a word that counts something ("found no issues", "3
// warnings", "2 files changed").
func readsAsResult(l string) bool {
	low := strings.ToLower(l)
	hasDigit := strings.ContainsAny(low, "0123456789")
	for _, w := range []string{"issue", "error", "warning", "problem", "passed", "failed", "failure", "files changed", "file changed", "finished", "generated", "compiled", "nothing to commit", "up to date", "no issues", "succeeded", "done"} {
		if strings.Contains(low, w) && (hasDigit || strings.HasPrefix(w, "no") || w == "nothing to commit" || w == "up to date" || w == "generated" || w == "succeeded" || w == "done" || w == "finished") {
			return true
		}
	}
	return false
}

// maxResult caps a result line.
const maxResult = 160

// exitStatus: the status the client recorded, else 0 for a Bash success,
// N for "Exit code N", 1 for another failure.
func exitStatus(r *transcript.ToolResult) int {
	if r.Exit != nil {
		return *r.Exit
	}
	if !r.IsError {
		return 0
	}
	var code int
	if _, err := fmt.Sscanf(strings.TrimSpace(r.Text()), "Exit code %d", &code); err == nil {
		return code
	}
	return 1
}

// errorLines are n lines of the failures of text: each failure's marker
// and the first line of its cause ("--- FAIL: TestRefund", "refund_test.go:42:
// got 1999 want 2000"), in the order of the output; but not the client's
// "Exit code N" line: the exit status is kept on its own.
func errorLines(output string, n int) []string {
	text := printable(output) // read as a terminal shows it, as views read it: a colour code inside a marker hides it
	if strings.HasPrefix(text, "Exit code ") {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		} else {
			text = ""
		}
	}
	fs, _ := swap.Failures(text, -1) // all: a later failure with a cause goes before an earlier one without
	key := swap.KeyLines(fs, n)
	out := make([]string, len(key))
	for i, l := range key {
		out[i] = short(l.Text, 240)
	}
	return out
}

// taskNumber is the N of the first "#N" in text, or "".
func taskNumber(text string) string {
	for i := strings.IndexByte(text, '#'); i >= 0; i = strings.IndexByte(text, '#') {
		text = text[i+1:]
		n := 0
		for n < len(text) && text[n] >= '0' && text[n] <= '9' {
			n++
		}
		if n > 0 {
			return text[:n]
		}
	}
	return ""
}

// taskEvent reads a task tool call. A created task's id is in its result:
// the structured result's task.id, else "#N" in the text.
func taskEvent(call transcript.ToolCall) (ctxkeep.TaskEvent, bool) {
	switch call.Name {
	case "TaskCreate":
		var in struct{ Subject, Description string }
		json.Unmarshal(call.Input, &in)
		e := ctxkeep.TaskEvent{Op: "create", Subject: short(in.Subject, 200), Status: "pending", Text: taskText(in.Description)}
		if call.Result != nil {
			var out struct {
				Task struct{ ID string } `json:"task"`
			}
			if json.Unmarshal(call.Result.Structured, &out) == nil && out.Task.ID != "" {
				e.ID = out.Task.ID
			} else {
				e.ID = taskNumber(call.Result.Text())
			}
		}
		return e, e.ID != "" || e.Subject != ""
	case "TaskUpdate":
		var in struct {
			TaskID  string `json:"taskId"`
			Subject string `json:"subject"`
			Status  string `json:"status"`
		}
		json.Unmarshal(call.Input, &in)
		return ctxkeep.TaskEvent{Op: "update", ID: in.TaskID, Subject: short(in.Subject, 200), Status: in.Status}, in.TaskID != ""
	case "TodoWrite":
		var in struct{ Todos []ctxkeep.Todo }
		if json.Unmarshal(call.Input, &in) != nil {
			return ctxkeep.TaskEvent{}, false
		}
		for i := range in.Todos {
			in.Todos[i].Content = short(in.Todos[i].Content, 200)
		}
		return ctxkeep.TaskEvent{Op: "todos", Todos: in.Todos}, true
	}
	return ctxkeep.TaskEvent{}, false
}

// moveLast appends s to list, or moves it to the end if it is there.
func moveLast(list []string, s string) []string {
	if s == "" {
		return list
	}
	return append(slices.DeleteFunc(list, func(x string) bool { return x == s }), s)
}

func appendNew(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
