package ctxkeep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// Agents: the clients ctxkeep plugs into, as a chunk names the one its
// session ran in.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
	AgentGemini     = "gemini"
)

// Kinds of chunks.
const (
	// KindStep is one step of a turn: an action of the assistant (a
	// response, with its tool calls and their results, or a short run of
	// them). The archive is made of steps; a turn is the group of steps
	// that share its number.
	KindStep = "step"
	// KindTurn is a whole turn in one chunk, as archives made before steps
	// hold it.
	KindTurn    = "turn"
	KindSummary = "summary" // a summary the client wrote when it compacted
)

// Chunk is a piece of the archive: one step of a conversation (or a whole
// turn archived before steps, or a compaction summary), rendered as text,
// with what it did.
type Chunk struct {
	Key       string    `json:"key"` // 'k' + 11 hex digits, stable for a session's step
	SessionID string    `json:"session_id"`
	Project   string    `json:"project"`
	Kind      string    `json:"kind"`
	Agent     string    `json:"agent"`          // the client the session ran in: AgentClaudeCode, AgentCodex, AgentGemini
	Turn      int       `json:"turn"`           // the turn (the user's prompt) it belongs to, 1, 2, …
	Step      int       `json:"step,omitempty"` // its place in the turn, 1, 2, …; 0 for other kinds
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Prompt    string    `json:"prompt"`  // the user's words, shortened: on a turn's first step only
	Summary   string    `json:"summary"` // one line, extractive
	Body      string    `json:"body"`    // the step rendered as text, swapped outputs by reference
	Meta      Meta      `json:"meta"`
	// Outputs holds the original text of the swapped outputs the body
	// refers to, for the full-text index: search finds an exact output the
	// transcript only holds as a view. Indexes do not return it.
	Outputs []string `json:"-"`
}

// Conversation reports whether the chunk holds part of the conversation
// (a step, or a whole turn archived before steps) rather than a summary.
func (c Chunk) Conversation() bool { return c.Kind == KindStep || c.Kind == KindTurn }

// A TurnKey names one turn of one session.
type TurnKey struct {
	SessionID string
	Turn      int
}

// SteppedTurns lists, once each, the turns chunks holds steps of. An index
// saving them deletes what it archived of those turns before steps (the
// whole turn, and a compaction summary in it): the turn that was open when
// the archive moved to steps is there once, as steps.
func SteppedTurns(chunks []Chunk) []TurnKey {
	var out []TurnKey
	for _, c := range chunks {
		k := TurnKey{c.SessionID, c.Turn}
		if c.Kind == KindStep && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Before orders chunks as the conversation went: by turn, then step.
func (c Chunk) Before(d Chunk) bool {
	if c.Turn != d.Turn {
		return c.Turn < d.Turn
	}
	return c.Step < d.Step
}

// Heading is what a chunk is about, as against the outputs it carries:
// its summary and the assistant's own words (the "assistant: " lines of
// the body, as archive renders it) with its date, and the files and
// commands it touched. Full-text indexes rank on it, with the prompt, as
// well as on the whole chunk, so that a step is not drowned by the length
// of its outputs.
func (c Chunk) Heading() (words, files string) {
	var w, f strings.Builder
	w.WriteString(c.Summary)
	in := false
	for l := range strings.Lines(c.Body) {
		switch {
		case strings.HasPrefix(l, "assistant: "):
			in = true
			w.WriteString("\n")
			l = strings.TrimPrefix(l, "assistant: ")
		case strings.HasPrefix(l, "→ "), strings.HasPrefix(l, "← "), strings.HasPrefix(l, "user: "):
			in = false
		}
		if in {
			w.WriteString(l)
		}
	}
	w.WriteString("\n" + c.DateWords())
	for _, p := range c.Meta.Files() {
		f.WriteString(p + "\n")
	}
	for _, cmd := range c.Meta.Commands {
		f.WriteString(cmd.Run + "\n")
	}
	return w.String(), f.String()
}

// DateWords are the words of the chunk's date that the full-text index
// holds, "May 2023", so that a search for what happened in June, or in
// 2025, finds it; "" without a date.
func (c Chunk) DateWords() string {
	if c.Start.IsZero() {
		return ""
	}
	return c.Start.UTC().Format("January 2006")
}

// BodyHash is the SHA-256 of the chunk's body: the same turn archived
// twice is stored once.
func (c Chunk) BodyHash() string {
	s := sha256.Sum256([]byte(c.Body))
	return hex.EncodeToString(s[:])
}

// Meta is what one step did; a session's working state is the fold of its
// steps' Meta.
type Meta struct {
	Tools         []string    `json:"tools,omitempty"`          // distinct, in order of first use
	FilesRead     []string    `json:"files_read,omitempty"`     // distinct, in order of last use
	FilesModified []string    `json:"files_modified,omitempty"` // distinct, in order of last use
	Commands      []Command   `json:"commands,omitempty"`
	Errors        []string    `json:"errors,omitempty"` // failures and their first causes, shortened
	Decisions     []string    `json:"decisions,omitempty"`
	Corrections   []string    `json:"corrections,omitempty"` // the user setting the model right
	Tasks         []TaskEvent `json:"tasks,omitempty"`
	Entries       []string    `json:"entries,omitempty"` // swapped outputs the turn produced
	// Ranges are the parts of files the step read by line (a Read with an
	// offset or a limit), in order; a whole file read has none.
	Ranges []LineRange `json:"ranges,omitempty"`
}

// LineRange is lines From to To of a file, counted from 1; To is 0 when
// the read went to the end of the file.
type LineRange struct {
	Path string `json:"path"`
	From int    `json:"from"`
	To   int    `json:"to,omitempty"`
}

// Files are the files the turn modified, then those it read.
func (m Meta) Files() []string {
	return append(append([]string{}, m.FilesModified...), m.FilesRead...)
}

// Command is one shell command and how it went.
type Command struct {
	Run string `json:"run"`
	// Group is what it runs, its redirections and the filters it is piped
	// into aside ("mix test --seed 0" for `mix test --seed 0 2>&1 | tail
	// -15`): its runs are grouped by it. "" in steps archived before it
	// was recorded.
	Group string `json:"group,omitempty"`
	Exit  int    `json:"exit"` // -1 when unknown
	// Errors are the failures of its output, each marker with the first
	// line of its cause ("--- FAIL: TestRefund", "refund_test.go:42: got
	// 1999 want 2000"), read from the exact output when ctxkeep stored it.
	Errors []string `json:"errors,omitempty"`
	// Outcome is what the runner that printed the output reported of its
	// run ("mix test: 2 failed, 408 passed"), when a known one did.
	Outcome string `json:"outcome,omitempty"`
	// Result is the output's result line as printed: the runner's own
	// summary line ("14 doctests, 410 tests, 0 failures") when a known
	// runner printed it, else the output's last line; "" without output.
	Result string `json:"result,omitempty"`
}

// Failed reports whether the command failed.
func (c Command) Failed() bool { return c.Exit > 0 }

// TaskEvent is a change to the task list: a task created or updated
// (TaskCreate, TaskUpdate, or an issue tracker's command: bd update, bd
// close), a task's text read (an issue tracker's bd show, gh issue
// view), or the whole todo list rewritten (TodoWrite).
type TaskEvent struct {
	Op      string `json:"op"` // "create", "update", "show" or "todos"
	ID      string `json:"id,omitempty"`
	Subject string `json:"subject,omitempty"`
	Status  string `json:"status,omitempty"`
	// Text is the task's text as the agent read it (a created task's
	// description, a tracker's output for it), shortened.
	Text  string `json:"text,omitempty"`
	Todos []Todo `json:"todos,omitempty"`
}

// Todo is one item of a todo list.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// ColdTask is the summary of a completed task nobody mentions any more,
// made once so that compaction can keep it verbatim.
type ColdTask struct {
	TaskID   string `json:"task_id"`
	Subject  string `json:"subject"`
	From, To int    `json:"-"` // the turns it spanned
	Summary  string `json:"summary"`
}

// Usage is how full a session's context is, as the client counts it.
type Usage struct {
	// Tokens is input + cache creation + cache reads + output: the figure
	// auto-compaction compares with its threshold.
	Tokens int64
	// InputTokens is the same without output.
	InputTokens int64
	Model       string    // of the last response, kept across a compaction
	MessageID   string    // of the last response; empty after a compaction
	Timestamp   time.Time // of the line the figures come from
	// Compacted says no response has followed the last compaction yet.
	Compacted bool
	// Window is the context window the client recorded with the figures
	// (Codex's model_context_window); 0 when it records none (Claude Code).
	Window int64 `json:",omitempty"`
}

// Known reports whether the figures are known.
func (u Usage) Known() bool { return u.Tokens > 0 }

// ArchiveCursor is how far a session's transcript has been archived: the
// first line of its last step, which may still grow.
type ArchiveCursor struct {
	Transcript string
	Offset     int64 // byte offset of that line
	Line       int   // its line number, 0-based
	Turn       int   // the turn that step belongs to
	Step       int   // the index the step gets in its turn (1 at a turn's start)
	Usage      Usage // the context usage seen so far
}

// ChunkQuery is a full-text search of the archive.
type ChunkQuery struct {
	Text    string
	Session string // only this session, when set
	Project string // only this project, when set
	Kind    string // only this kind, when set
	Limit   int    // at most this many (0: a backend default)
}

// ChunkHit is a chunk that matched a query, with its lexical relevance:
// higher is better, 0 or more, comparable only within one result list.
type ChunkHit struct {
	Chunk
	Lexical float64 `json:"lexical"`
	// Phrase says the chunk holds the query's words one after the other,
	// in order (a phrase match, as FTS5's "a b c" or PostgreSQL's
	// phraseto_tsquery): an exact line or identifier the user typed.
	Phrase bool `json:"phrase,omitempty"`
}

// ArchiveIndex is the searchable archive of conversations.
type ArchiveIndex interface {
	// Cursor returns the session's archive cursor; ok is false before the
	// first archive of the session.
	Cursor(ctx context.Context, session string) (c ArchiveCursor, ok bool, err error)
	// SaveChunks stores chunks and moves the session's cursor, atomically.
	// A chunk is identified by session, kind, turn and step: one whose
	// body is unchanged (same BodyHash) is left as it is; a changed one
	// replaces the old, in the full-text index too. A step replaces the
	// whole-turn chunk (KindTurn) of its turn, if the session has one (the
	// turn that was open when steps came in is archived again as steps).
	// Saving the same chunks twice is harmless. It returns how many chunks
	// were written.
	SaveChunks(ctx context.Context, session string, chunks []Chunk, cur ArchiveCursor) (int, error)
	// Chunks returns a session's chunks in turn order, and by step within
	// a turn (a turn's summary, if any, after its steps).
	Chunks(ctx context.Context, session string) ([]Chunk, error)
	// ChunkHeads returns a session's chunks as Chunks does, but without
	// their bodies (Body is empty): what folding the working state of a
	// long session needs, without reading every output it archived.
	ChunkHeads(ctx context.Context, session string) ([]Chunk, error)
	// Chunk returns the chunk with key, or the only one whose key starts
	// with it: ErrNotFound, ErrAmbiguous.
	Chunk(ctx context.Context, key string) (Chunk, error)
	// TurnRange returns the conversation of a session's turns from to to:
	// their steps (and whole-turn chunks), by turn and step.
	TurnRange(ctx context.Context, session string, from, to int) ([]Chunk, error)
	// SearchChunks returns the chunks matching any word of q.Text, most
	// relevant first (prompts and files weigh more than summaries,
	// summaries more than bodies): ErrEmptyQuery when q.Text has no word.
	// When q.Text has two words or more, the chunks holding them as a
	// phrase come first, with Phrase set.
	SearchChunks(ctx context.Context, q ChunkQuery) ([]ChunkHit, error)
	// ChunkSessions lists the sessions with chunks, latest first.
	ChunkSessions(ctx context.Context) ([]string, error)
	// ColdTasks returns a session's cold-task summaries.
	ColdTasks(ctx context.Context, session string) ([]ColdTask, error)
	// AddColdTasks stores cold-task summaries; a task summarised already
	// keeps its first summary.
	AddColdTasks(ctx context.Context, session string, tasks []ColdTask, now time.Time) error
}
