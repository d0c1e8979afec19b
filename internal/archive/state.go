package archive

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep"
)

// Item is one remembered thing with its provenance: the turn and the chunk
// it comes from, so that every restored line can be traced and recalled.
type Item struct {
	Text string `json:"text"`
	Turn int    `json:"turn"`
	Key  string `json:"chunk"`
}

// Task is a task of the session (TaskCreate/TaskUpdate), or an item of its
// latest todo list (TodoWrite), with its state.
type Task struct {
	ID        string `json:"id,omitempty"`
	Subject   string `json:"subject"`
	Status    string `json:"status"` // pending, in_progress, completed, deleted
	Created   int    `json:"created_turn"`
	Completed int    `json:"completed_turn,omitempty"`
	Key       string `json:"chunk"`
}

// File is a file the session modified.
type File struct {
	Path  string `json:"path"`
	Edits int    `json:"edits"` // turns that modified it
	Turn  int    `json:"last_turn"`
	Key   string `json:"chunk"`
	// Seq orders the files by when they were last touched, also within a
	// turn (one prompt can drive hours of work).
	Seq int `json:"-"`
}

// Run is a command the session ran, with how it last went.
type Run struct {
	Command  string   `json:"command"`
	Runs     int      `json:"runs"`
	Exit     int      `json:"last_exit"` // -1 when unknown
	Errors   []string `json:"errors,omitempty"`
	Turn     int      `json:"last_turn"`
	Key      string   `json:"chunk"`
	Check    bool     `json:"check"` // a test, build or lint run
	Failures int      `json:"failed_runs"`
	Seq      int      `json:"-"` // orders runs by when they last ran
}

// State is the working state of a session, folded from its turns.
type State struct {
	Session      string `json:"session_id"`
	Turns        int    `json:"turns"`
	Tasks        []Task `json:"tasks,omitempty"`
	Todos        []Task `json:"todos,omitempty"`      // the latest TodoWrite list
	Files        []File `json:"files,omitempty"`      // modified
	Read         []File `json:"files_read,omitempty"` // read and never modified
	Commands     []Run  `json:"commands,omitempty"`
	Decisions    []Item `json:"decisions,omitempty"`
	Corrections  []Item `json:"corrections,omitempty"`
	Errors       []Item `json:"errors,omitempty"` // unresolved: the last run of their command failed
	UserMessages []Item `json:"user_messages,omitempty"`
}

// Unresolved returns the commands whose latest run failed.
func (s State) Unresolved() []Run {
	var out []Run
	for _, r := range s.Commands {
		if r.Exit > 0 {
			out = append(out, r)
		}
	}
	return out
}

// Active returns the tasks not completed or deleted, todos included.
func (s State) Active() []Task {
	var out []Task
	for _, t := range append(append([]Task{}, s.Tasks...), s.Todos...) {
		if t.Status != "completed" && t.Status != "deleted" {
			out = append(out, t)
		}
	}
	return out
}

// Done returns the completed tasks, in the order they were created.
func (s State) Done() []Task {
	var out []Task
	for _, t := range append(append([]Task{}, s.Tasks...), s.Todos...) {
		if t.Status == "completed" {
			out = append(out, t)
		}
	}
	return out
}

// Fold computes the state of a session from its steps (and whole turns
// archived before steps), in the order of the conversation. isCheck tells
// test, build and lint commands (config wrapper.commands) from the rest.
func Fold(session string, chunks []ctxkeep.Chunk, isCheck func(string) bool) State {
	f := folder{State: State{Session: session}, tasks: map[string]int{}, files: map[string]int{}, read: map[string]int{}, runs: map[string]int{}}
	sort.SliceStable(chunks, func(i, j int) bool { return chunks[i].Before(chunks[j]) })
	for _, c := range chunks {
		if !c.Conversation() {
			continue
		}
		f.turn(c, isCheck)
	}
	f.unresolvedErrors()
	f.Read = slices.DeleteFunc(f.Read, func(r File) bool { _, modified := f.files[r.Path]; return modified })
	return f.State
}

type folder struct {
	State
	tasks map[string]int // task id → index in Tasks
	files map[string]int // path → index in Files
	read  map[string]int // path → index in Read
	runs  map[string]int
	seq   int
}

func (f *folder) turn(c ctxkeep.Chunk, isCheck func(string) bool) {
	f.Turns = max(f.Turns, c.Turn)
	m := c.Meta
	item := func(text string) Item { return Item{Text: text, Turn: c.Turn, Key: c.Key} }
	if c.Prompt != "" {
		f.UserMessages = append(f.UserMessages, item(short(c.Prompt, 200)))
	}
	for _, d := range m.Decisions {
		f.Decisions = append(f.Decisions, item(d))
	}
	for _, d := range m.Corrections {
		f.Corrections = append(f.Corrections, item(d))
	}
	for _, e := range m.Tasks {
		f.task(e, c)
	}
	for _, p := range m.FilesRead {
		f.Read = touch(f.Read, f.read, p, c, &f.seq)
	}
	for _, p := range m.FilesModified {
		f.Files = touch(f.Files, f.files, p, c, &f.seq)
		f.Files[f.files[p]].Edits++
	}
	for _, cmd := range m.Commands {
		f.run(cmd, c, isCheck != nil && isCheck(cmd.Run))
	}
}

func (f *folder) task(e ctxkeep.TaskEvent, c ctxkeep.Chunk) {
	switch e.Op {
	case "todos":
		f.Todos = f.Todos[:0]
		for _, t := range e.Todos {
			f.Todos = append(f.Todos, Task{Subject: t.Content, Status: t.Status, Created: c.Turn, Key: c.Key})
		}
	case "create":
		f.tasks[e.ID] = len(f.Tasks)
		f.Tasks = append(f.Tasks, Task{ID: e.ID, Subject: e.Subject, Status: "pending", Created: c.Turn, Key: c.Key})
	case "update":
		i, ok := f.tasks[e.ID]
		if !ok { // created before the archive began
			i = len(f.Tasks)
			f.tasks[e.ID] = i
			f.Tasks = append(f.Tasks, Task{ID: e.ID, Subject: "task #" + e.ID, Status: "pending", Created: c.Turn, Key: c.Key})
		}
		t := &f.Tasks[i]
		if e.Subject != "" {
			t.Subject = e.Subject
		}
		if e.Status != "" {
			t.Status = e.Status
			t.Key = c.Key
		}
		if e.Status == "completed" {
			t.Completed = c.Turn
		}
	}
}

// touch records that chunk c touched a file of list (indexed by at).
func touch(list []File, at map[string]int, path string, c ctxkeep.Chunk, seq *int) []File {
	i, ok := at[path]
	if !ok {
		i = len(list)
		at[path] = i
		list = append(list, File{Path: path})
	}
	*seq++
	list[i].Turn, list[i].Key, list[i].Seq = c.Turn, c.Key, *seq
	return list
}

// run records a command; the same command run again (whitespace aside)
// updates its outcome, so a failure followed by a success is resolved.
func (f *folder) run(cmd ctxkeep.Command, c ctxkeep.Chunk, check bool) {
	norm := strings.Join(strings.Fields(cmd.Run), " ")
	i, ok := f.runs[norm]
	if !ok {
		i = len(f.Commands)
		f.runs[norm] = i
		f.Commands = append(f.Commands, Run{Command: cmd.Run, Check: check})
	}
	r := &f.Commands[i]
	r.Runs++
	f.seq++
	r.Exit, r.Errors, r.Turn, r.Key, r.Seq = cmd.Exit, cmd.Errors, c.Turn, c.Key, f.seq
	if cmd.Failed() {
		r.Failures++
	}
}

// unresolvedErrors lists the error lines of commands whose last run failed.
func (f *folder) unresolvedErrors() {
	for _, r := range f.Unresolved() {
		text := "`" + short(r.Command, 120) + "` failed (exit " + itoa(r.Exit) + ")"
		if len(r.Errors) > 0 {
			text += ": " + strings.Join(r.Errors, " / ")
		}
		f.Errors = append(f.Errors, Item{Text: short(text, 400), Turn: r.Turn, Key: r.Key})
	}
}

func itoa(n int) string {
	if n < 0 {
		return "?"
	}
	return strconv.Itoa(n)
}
