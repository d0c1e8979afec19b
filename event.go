package ctxkeep

import "time"

// Outcomes of a hook call.
const (
	OK       = "ok"       // handled
	Failed   = "error"    // an internal error; the hook failed open
	Panicked = "panic"    // a recovered panic; the hook failed open
	TimedOut = "timeout"  // the handler blew its deadline; the hook failed open
	TooLarge = "oversize" // the payload was over limits.hook_input_bytes
)

// Event is one hook call as ctxkeep saw it.
type Event struct {
	Time       time.Time `json:"t"`
	Event      string    `json:"ev"`
	Tool       string    `json:"tool,omitempty"`
	Agent      string    `json:"agent,omitempty"` // set inside subagents
	Bytes      int64     `json:"bytes"`           // payload size
	Micros     int64     `json:"us"`              // process start to reply
	Outcome    string    `json:"out"`
	Client     string    `json:"client,omitempty"` // the agent's name and version
	Cwd        string    `json:"cwd,omitempty"`
	Transcript string    `json:"transcript,omitempty"`
	// Large is set when the call swapped out the output of a command:
	// the wrapper learns such commands once the journal is indexed (at the
	// end of the turn), which keeps that file's lock off the hot path.
	Large *LargeOutput `json:"large,omitempty"`
}

// LargeOutput is a command whose output was large, in a project.
type LargeOutput struct {
	Project string `json:"project"`
	Command string `json:"command"`
	Chars   int    `json:"chars"`
}

// EventSink records hook calls. Append must be cheap (it runs on every
// hook call) and safe for many processes at once; a record appended is
// never lost or split, and lands in the index exactly once.
type EventSink interface {
	Append(session string, e Event) error
}
