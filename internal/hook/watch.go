package hook

import (
	"context"
	"errors"
	"io/fs"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// usageWarnings tells the model and the user when the context crosses one
// of the configured levels on its way to auto-compaction: once per level
// and compaction cycle. It runs on UserPromptSubmit and on PostToolUse, so
// that a long autonomous turn hears of a crossing after the tool call that
// made it rather than never (the client may compact mid-turn); both share
// one record of what was told, so a crossing is told once, by whichever
// sees it first. It never waits for the client to write the line of the
// response that made its call (the client writes it a little behind): it
// reads what the transcript holds, and a crossing that line makes is told
// by the next call that reads it. It reads only the transcript lines appended since the
// last call (the cursor is kept in the state folder, at most
// limits.transcript_read_bytes at a time), so a call costs the same on a
// 500 MB transcript as on a new one.
func usageWarnings(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	levels := watch.Levels(c.Config.Watch)
	if !c.Config.Watch.Enabled || len(levels) == 0 || ev.TranscriptPath == "" || ev.AgentID != "" {
		return nil, nil
	}
	path := watch.WarnPath(watch.Dir(c.Dirs.State), ev.SessionID)
	var w watch.Warning
	var crossed bool
	// Parallel tool calls end in parallel PostToolUse hooks: the record is
	// read and written under a lock, or two of them would both warn.
	err := fsx.Locked(path+".lock", func() error {
		var st watch.WarnState
		if err := watch.Load(path, &st); err != nil {
			return err
		}
		if err := c.advance(&st.Progress); err != nil {
			return err
		}
		w, crossed = c.crossing(&st, levels)
		return watch.Save(path, &st)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the first prompt of a session: nothing written yet
	}
	if err != nil || !crossed {
		return nil, err
	}
	w.SwappedOut = c.kept(ctx)
	return &Reply{
		SystemMessage: w.ForUser(),
		Specific:      &SpecificOutput{HookEventName: ev.HookEventName, AdditionalContext: w.ForModel()},
	}, nil
}

// crossing works out the session's thresholds and whether the context has
// crossed a level not yet warned about.
func (c *Call) crossing(st *watch.WarnState, levels []int) (watch.Warning, bool) {
	u := st.Usage
	if !u.Known() || u.Compacted {
		st.Cross(nil, 0) // a compaction still starts a new cycle
		return watch.Warning{}, false
	}
	limits := c.limits(u, st.Peak)
	level, ok := st.Cross(levels, limits.OfThreshold(u.Tokens))
	w := watch.Warning{Level: level, Last: level == levels[len(levels)-1], Tokens: u.Tokens, Limits: limits, Client: c.clientName()}
	if c.Agent == ctxkeep.AgentGemini {
		w.Compact = "/compress"
	}
	if r := c.retrieval(); r.Tools != "" {
		w.Show = r.Show("ID", "grep", "RE") + ", `lines`, `failures`"
	}
	return w, ok
}

// kept returns what swap kept out of the session, or nil when the index
// cannot say: a warning goes out without it rather than not at all.
func (c *Call) kept(ctx context.Context) *watch.SwappedOut {
	st, err := c.Store()
	if err != nil {
		return nil
	}
	swaps, err := st.Swaps(ctx, c.Event.SessionID)
	if err != nil {
		return nil
	}
	return watch.KeptOutOf(swaps[c.Event.SessionID])
}
