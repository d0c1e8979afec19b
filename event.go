package ctxkeep

import (
	"fmt"
	"strings"
	"time"
)

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

// EventSink records hook calls: the hooks append to it, and the index
// ingests what it holds (EventIndex.IngestJournals). Append must be cheap
// (it runs on every hook call) and safe for many processes at once; a
// record appended is never lost or split, and lands in the index exactly
// once. internal/journal implements it.
type EventSink interface {
	Append(session string, e Event) error
}

// ValidSessionID reports whether id is safe to use as a file name: the
// clients' ids are UUIDs; anything with a path separator, a leading dot or
// odd characters is refused, so hook input can never name a path outside
// ctxkeep's folders.
func ValidSessionID(id string) error {
	if id == "" || len(id) > 128 || id[0] == '.' || id[0] == '-' {
		return fmt.Errorf("invalid session id %q", id)
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return fmt.Errorf("invalid session id %q", id)
		}
	}
	if strings.Contains(id, "..") {
		return fmt.Errorf("invalid session id %q", id)
	}
	return nil
}
