package ctxkeep

import "time"

// Session is a conversation as the hooks saw it.
type Session struct {
	ID         string    `json:"session_id"`
	FirstSeen  time.Time `json:"first_seen"`
	LastSeen   time.Time `json:"last_seen"`
	Cwd        string    `json:"cwd,omitempty"`
	Transcript string    `json:"transcript_path,omitempty"`
	Client     string    `json:"client_version,omitempty"`
}

// SessionStats summarises the hook events of one session.
type SessionStats struct {
	Session
	Events       int          `json:"events"`
	Failures     int          `json:"failures"` // hook calls that failed open
	PayloadBytes int64        `json:"payload_bytes"`
	ByEvent      []EventStats `json:"by_event"`
	ByTool       []ToolStats  `json:"by_tool"`
	Swap         *SwapStats   `json:"swap,omitempty"`
}

// EventStats summarises one hook event type.
type EventStats struct {
	Event    string `json:"event"`
	Count    int    `json:"count"`
	Failures int    `json:"failures"`
	Bytes    int64  `json:"payload_bytes"`
	P50us    int64  `json:"p50_us"`
	P95us    int64  `json:"p95_us"`
	MaxUs    int64  `json:"max_us"`
}

// ToolStats summarises the tool events (Pre/PostToolUse…) of one tool.
type ToolStats struct {
	Tool  string `json:"tool"`
	Count int    `json:"count"`
	Bytes int64  `json:"payload_bytes"`
}

// SwapStats summarises what was swapped out of one session's context.
type SwapStats struct {
	Entries    int   `json:"entries"`
	Chars      int64 `json:"chars"`      // of the originals
	ViewChars  int64 `json:"view_chars"` // of the views the model saw instead
	Retrieved  int   `json:"retrieved"`  // entries retrieved at least once
	Retrievals int   `json:"retrievals"`
	Proof
	ByTool []ToolSwaps `json:"by_tool"`
}

// Proof counts the stored outputs by what the transcript shows the model
// got (internal/proof): the replacements hook replies returned, applied or
// not or not checked yet, and the outputs ctxkeep printed itself. What was
// kept out of the context is counted from the applied and the printed
// ones only.
type Proof struct {
	Applied    int `json:"applied"`     // the transcript holds the replacement
	NotApplied int `json:"not_applied"` // it holds something else (the original): the entry's verdict says what and why
	Unchecked  int `json:"unchecked"`   // not checked yet: the transcript is checked at the end of each turn
	// Printed are the outputs no hook reply replaced, because ctxkeep
	// printed what the model got itself: the wrapper's (`ctxkeep
	// capture`), a purged transcript's stubs. There is nothing the client
	// could have dropped.
	Printed int `json:"printed"`
	// KeptOutChars are the characters that stayed out of the context:
	// the originals less their views, of the outputs applied or printed.
	KeptOutChars int64 `json:"kept_out_chars"`
	// UncheckedChars are the same of the replacements not checked yet:
	// kept out if the client took them.
	UncheckedChars int64 `json:"unchecked_chars"`
}

// KeptOut is the number of outputs the transcript shows were kept out of
// the context: the replacements applied and the outputs ctxkeep printed.
func (p Proof) KeptOut() int { return p.Applied + p.Printed }

// ToolSwaps is SwapStats for one tool.
type ToolSwaps struct {
	Tool       string `json:"tool"`
	Entries    int    `json:"entries"`
	Chars      int64  `json:"chars"`
	ViewChars  int64  `json:"view_chars"`
	Retrieved  int    `json:"retrieved"`
	Retrievals int    `json:"retrievals"`
	Proof
}

// RefetchRate is the share of entries retrieved at least once: how often a
// view was not enough.
func (s SwapStats) RefetchRate() float64 {
	if s.Entries == 0 {
		return 0
	}
	return float64(s.Retrieved) / float64(s.Entries)
}

// ArchivedSession sums up one session of the archive, as a list of
// sessions shows it: which project and client, how long, how many steps
// and compactions, and the context usage its archive last read.
type ArchivedSession struct {
	ID          string    `json:"session_id"`
	Project     string    `json:"project"`
	Agent       string    `json:"agent"`       // AgentClaudeCode, AgentCodex
	Steps       int       `json:"steps"`       // steps, and whole turns archived before steps
	Turns       int       `json:"turns"`       // the user's prompts
	Compactions int       `json:"compactions"` // the client's compaction summaries archived
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Prompt      string    `json:"prompt,omitempty"`     // the first prompt, shortened
	Transcript  string    `json:"transcript,omitempty"` // where the archive reads it
	Usage       Usage     `json:"usage"`                // the context as the archive last read it
}
