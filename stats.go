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

// Proof counts the replacements hook replies returned by whether the
// client took them, as the transcript shows (internal/proof).
type Proof struct {
	Applied    int `json:"applied"`     // the transcript holds the replacement
	NotApplied int `json:"not_applied"` // it holds something else: the entry's verdict says what and why
	Unchecked  int `json:"unchecked"`   // not checked yet (checked at the end of each turn)
}

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

// KeptOut is the characters that stayed out of the context.
func (s SwapStats) KeptOut() int64 { return s.Chars - s.ViewChars }

// RefetchRate is the share of entries retrieved at least once: how often a
// view was not enough.
func (s SwapStats) RefetchRate() float64 {
	if s.Entries == 0 {
		return 0
	}
	return float64(s.Retrieved) / float64(s.Entries)
}
