package hook

import (
	"context"
	"errors"
	"io/fs"

	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// usageWarnings tells the model and the user when the context crosses one
// of the configured levels on its way to auto-compaction: once per level
// and compaction cycle. It reads only the transcript lines appended since
// the previous prompt (the cursor is kept in the state folder), so a
// prompt costs the same on a 500 MB transcript as on a new one.
func usageWarnings(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	levels := watch.Levels(c.Config.Watch)
	if !c.Config.Watch.Enabled || len(levels) == 0 || ev.TranscriptPath == "" || ev.AgentID != "" {
		return nil, nil
	}
	dir := watch.Dir(c.Dirs.State)
	path := watch.WarnPath(dir, ev.SessionID)
	var st watch.WarnState
	if err := watch.Load(path, &st); err != nil {
		return nil, err
	}
	if err := c.advance(&st.Progress); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the first prompt of a session: nothing written yet
	} else if err != nil {
		return nil, err
	}
	w, ok := c.crossing(&st, levels)
	if err := watch.Save(path, &st); err != nil {
		return nil, err
	}
	if !ok {
		return nil, nil
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
	return watch.Warning{Level: level, Last: level == levels[len(levels)-1], Tokens: u.Tokens, Limits: limits, Client: c.clientName()}, ok
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
	s := swaps[c.Event.SessionID]
	if s == nil {
		return &watch.SwappedOut{}
	}
	return &watch.SwappedOut{Entries: s.Entries, Chars: s.KeptOut()}
}
