package transcript

import "time"

// ContextUsage is how full the main conversation's context is, counted as
// the client counts it (claude-code-hooks.md §8.3): from the usage of the
// last main-thread response after the last compaction.
type ContextUsage struct {
	// Tokens is input + cache creation + cache reads + output: the figure
	// auto-compaction compares with its threshold, and SessionStart's
	// context_tokens.
	Tokens int64
	// InputTokens is the same without output: the statusline's
	// total_input_tokens.
	InputTokens int64
	Model       string    // of the last response, kept across a compaction
	MessageID   string    // of the last response; empty after a compaction
	Timestamp   time.Time // of the line the figures come from
	// Compacted says no response has followed the last compaction yet:
	// both figures are its postTokens, or 0 when the client did not record
	// them (2.1.39 does not).
	Compacted bool
}

// Known reports whether the figures are known.
func (u ContextUsage) Known() bool { return u.Tokens > 0 }

// Update takes the next record of the main transcript into account.
// Records must come in file order. Subagents' records and the client's
// synthetic responses (zero usage) change nothing. A ContextUsage is all
// the state there is: a monitor can keep it with its Cursor and update it
// from the new lines only.
//
// A response's lines all repeat its usage, the last one with the final
// output count, so the last line read is always the right one.
func (u *ContextUsage) Update(r *Record) {
	if !r.MainThread() {
		return
	}
	switch {
	case r.IsCompactBoundary():
		var post int64
		if r.CompactMetadata != nil {
			post = r.CompactMetadata.PostTokens
		}
		*u = ContextUsage{Tokens: post, InputTokens: post, Model: u.Model, Timestamp: r.Timestamp, Compacted: true}
	case r.Type == TypeAssistant && r.Message != nil && r.Message.Model != SyntheticModel:
		m := r.Message
		*u = ContextUsage{
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
func CurrentContext(recs []Record) ContextUsage {
	var u ContextUsage
	for i := range recs {
		u.Update(&recs[i])
	}
	return u
}
