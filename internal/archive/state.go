package archive

import (
	"math"
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
	// Text is the task's text as the agent last read it (its description,
	// an issue tracker's output for it), and TextKey the step it was read
	// in; "" when it never read more than the title.
	Text    string `json:"text,omitempty"`
	TextKey string `json:"text_chunk,omitempty"`
	Seq     int    `json:"-"` // orders the tasks by when they were last touched
}

// File is a file the session modified or read.
type File struct {
	Path  string `json:"path"`
	Edits int    `json:"edits"` // steps that modified it
	Reads int    `json:"reads"` // steps that read it
	Turn  int    `json:"last_turn"`
	Key   string `json:"chunk"`
	// Ranges are the parts of it read by line, latest last, merged where
	// they overlap; none when it was read whole since.
	Ranges []ctxkeep.LineRange `json:"ranges,omitempty"`
	// Seq orders the files by when they were last touched, also within a
	// turn (one prompt can drive hours of work).
	Seq int `json:"-"`
	// Score is how much it is in use: each step that touched it counts,
	// the older the less (InUse).
	Score float64 `json:"-"`
}

// UseHalfLife is how many things the session did (a file touched, a
// command run, a task changed) after which one of them counts half as
// much in InUse.
const UseHalfLife = 20

// Run is what the session ran (RunGroup: the variants of one command
// line, its filters and redirections aside, are one Run), with how it
// last went.
type Run struct {
	Group    string   `json:"group"`   // what it runs
	Command  string   `json:"command"` // the latest command line
	Variants int      `json:"variants"`
	Runs     int      `json:"runs"`
	Result   string   `json:"result,omitempty"`  // the latest result line (ctxkeep.Command.Result)
	Outcome  string   `json:"outcome,omitempty"` // the runner's latest account
	Exit     int      `json:"last_exit"`         // -1 when unknown
	Errors   []string `json:"errors,omitempty"`
	Turn     int      `json:"last_turn"`
	Key      string   `json:"chunk"`
	Check    bool     `json:"check"` // a test, build or lint run
	Failures int      `json:"failed_runs"`
	Seq      int      `json:"-"` // orders runs by when they last ran
	Score    float64  `json:"-"` // how much it is in use: InUse of its runs
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
	f := folder{State: State{Session: session}, tasks: map[string]int{}, files: map[string]int{}, read: map[string]int{}, runs: map[string]int{},
		variants: map[string]map[string]bool{}, touches: map[string][]int{}}
	sort.SliceStable(chunks, func(i, j int) bool { return chunks[i].Before(chunks[j]) })
	for _, c := range chunks {
		if !c.Conversation() {
			continue
		}
		f.turn(c, isCheck)
	}
	f.unresolvedErrors()
	for _, list := range [][]File{f.Files, f.Read} {
		for i := range list {
			list[i].Score = InUse(f.touches[list[i].Path], f.seq)
		}
	}
	for i := range f.Commands {
		f.Commands[i].Score = InUse(f.touches["\x00"+f.Commands[i].Group], f.seq)
	}
	for i := range f.Files {
		if j, ok := f.read[f.Files[i].Path]; ok {
			r := f.Read[j]
			f.Files[i].Reads, f.Files[i].Ranges = r.Reads, r.Ranges
		}
	}
	f.Read = slices.DeleteFunc(f.Read, func(r File) bool { _, modified := f.files[r.Path]; return modified })
	return f.State
}

// InUse is how much something is in use, from the session's clock at
// each of its uses (uses) and now: each weighs 1, halved every
// UseHalfLife things the session did since — how often, and how lately.
func InUse(uses []int, now int) float64 {
	s := 0.0
	for _, t := range uses {
		s += math.Exp2(-float64(now-t) / UseHalfLife)
	}
	return s
}

type folder struct {
	State
	tasks map[string]int // task id → index in Tasks
	files map[string]int // path → index in Files
	read  map[string]int // path → index in Read
	runs  map[string]int
	seq   int
	// variants are the command lines of each group; touches the seqs of
	// each file's touches and each group's runs.
	variants map[string]map[string]bool
	touches  map[string][]int
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
		f.touches[p] = append(f.touches[p], f.seq)
		r := &f.Read[f.read[p]]
		r.Reads++
		r.Ranges = readRanges(r.Ranges, p, m.Ranges)
	}
	for _, p := range m.FilesModified {
		f.Files = touch(f.Files, f.files, p, c, &f.seq)
		f.touches[p] = append(f.touches[p], f.seq)
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
		f.seq++
		f.Tasks = append(f.Tasks, Task{ID: e.ID, Subject: e.Subject, Status: "pending", Created: c.Turn, Key: c.Key, Seq: f.seq})
		if e.Text != "" {
			f.Tasks[len(f.Tasks)-1].Text, f.Tasks[len(f.Tasks)-1].TextKey = e.Text, c.Key
		}
	case "show":
		i, ok := f.tasks[e.ID]
		if !ok {
			i = len(f.Tasks)
			f.tasks[e.ID] = i
			f.Tasks = append(f.Tasks, Task{ID: e.ID, Subject: e.ID, Status: "pending", Created: c.Turn, Key: c.Key})
		}
		t := &f.Tasks[i]
		if e.Subject != "" {
			t.Subject = e.Subject
		}
		if e.Status != "" && t.Status != "in_progress" || e.Status == "completed" {
			t.Status = e.Status // the tracker's word, unless the session started it since it last showed it open
		}
		f.seq++
		t.Text, t.TextKey, t.Seq = e.Text, c.Key, f.seq
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
		f.seq++
		t.Seq = f.seq
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

// run records a command by what it runs (RunGroup): a variant of it run
// again updates its outcome, so a failure followed by a success of the
// same run is resolved, whatever it was piped into.
func (f *folder) run(cmd ctxkeep.Command, c ctxkeep.Chunk, check bool) {
	group := cmd.Group
	if group == "" { // archived before groups were recorded
		group = RunGroup(cmd.Run)
	}
	i, ok := f.runs[group]
	if !ok {
		i = len(f.Commands)
		f.runs[group] = i
		f.Commands = append(f.Commands, Run{Group: group})
		f.variants[group] = map[string]bool{}
	}
	r := &f.Commands[i]
	r.Runs++
	f.seq++
	f.touches["\x00"+group] = append(f.touches["\x00"+group], f.seq) // "\x00": no path starts so
	if v := strings.Join(strings.Fields(cmd.Run), " "); !f.variants[group][v] {
		f.variants[group][v] = true
		r.Variants++
	}
	r.Command, r.Check = cmd.Run, r.Check || check
	r.Exit, r.Errors, r.Turn, r.Key, r.Seq = cmd.Exit, cmd.Errors, c.Turn, c.Key, f.seq
	if cmd.Exit >= 0 {
		r.Result, r.Outcome = cmd.Result, cmd.Outcome
	}
	if cmd.Failed() {
		r.Failures++
	}
}

// readRanges adds the ranges of path a step read (ranges, of every file)
// to have: a whole read clears them; at most maxRanges are kept, merged
// where they overlap or touch.
func readRanges(have []ctxkeep.LineRange, path string, ranges []ctxkeep.LineRange) []ctxkeep.LineRange {
	var mine []ctxkeep.LineRange
	for _, r := range ranges {
		if r.Path == path {
			mine = append(mine, r)
		}
	}
	if len(mine) == 0 {
		return nil // read whole
	}
	for _, r := range mine {
		merged := false
		for i := range have {
			h := &have[i]
			if (h.To == 0 || r.From <= h.To+1) && (r.To == 0 || h.From <= r.To+1) {
				h.From = min(h.From, r.From)
				if h.To == 0 || r.To == 0 {
					h.To = 0
				} else {
					h.To = max(h.To, r.To)
				}
				merged = true
				break
			}
		}
		if !merged {
			have = append(have, r)
		}
	}
	return have[max(0, len(have)-maxRanges):]
}

// maxRanges bounds the ranges kept of one file.
const maxRanges = 4

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
