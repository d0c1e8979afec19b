package transcript

import (
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// UpdateUsage takes the next record of the main transcript into account in
// u, counted as the client counts it (claude-code-hooks.md §8.3): from the
// usage of the last main-thread response after the last compaction.
// Records must come in file order. Subagents' records and the client's
// synthetic responses (zero usage) change nothing. A Usage is all
// the state there is: a monitor can keep it with its Cursor and update it
// from the new lines only.
//
// A response's lines all repeat its usage, the last one with the final
// output count, so the last line read is always the right one.
func UpdateUsage(u *ctxkeep.Usage, r *Record) {
	if !r.MainThread() {
		return
	}
	switch {
	case r.IsCompactBoundary():
		var post int64
		if r.CompactMetadata != nil {
			post = r.CompactMetadata.PostTokens
		}
		*u = ctxkeep.Usage{Tokens: post, InputTokens: post, Model: u.Model, Timestamp: r.Timestamp, Compacted: true}
	case r.Type == TypeAssistant && r.Message != nil && r.Message.Model != SyntheticModel:
		m := r.Message
		*u = ctxkeep.Usage{
			Tokens:      m.Usage.Context() + m.Usage.OutputTokens,
			InputTokens: m.Usage.Context(),
			Model:       m.Model,
			MessageID:   m.ID,
			Timestamp:   r.Timestamp,
		}
	}
}

// CurrentContext returns the context usage at the end of recs, the
// records of a main transcript in file order.
func CurrentContext(recs []Record) ctxkeep.Usage {
	var u ctxkeep.Usage
	for i := range recs {
		UpdateUsage(&u, &recs[i])
	}
	return u
}

// UsageReport is a session's context usage along its transcript, for the
// clients whose transcripts hold totals only (Codex's rollouts, Gemini
// CLI's chats): what `ctxkeep context` and the web UI show of them.
type UsageReport struct {
	Model       string        `json:"model"`
	Usage       ctxkeep.Usage `json:"usage"` // now
	Peak        int64         `json:"peak"`
	Responses   int           `json:"responses"`
	Compactions []CompactedAt `json:"compactions"`
	Timeline    []UsagePoint  `json:"timeline"` // one point a response
}

// UsagePoint is the context after one response.
type UsagePoint struct {
	Time   time.Time `json:"time"`
	Tokens int64     `json:"tokens"`
}

// CompactedAt is one compaction (Gemini CLI: compression): when, and the
// context just before it.
type CompactedAt struct {
	Time   time.Time `json:"time"`
	Before int64     `json:"tokens_before"`
}
