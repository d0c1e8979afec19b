package hook

import (
	"context"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/pin"
	"github.com/ctxkeep/ctxkeep/internal/prune"
)

// sessionEndLimit caps the outputs one SessionEnd removes: the client gives
// SessionEnd hooks little time (our deadline plus 5 s), and the next
// session end, or `ctxkeep prune`, takes the rest.
const sessionEndLimit = 200

// tendAtSessionEnd cleans the store when a session ends. When the user
// ended it for good (/clear, /exit, logout), its unpinned outputs go, and
// its pending pins. Otherwise (-p runs end, the client quits) the store's
// expired outputs go. Either way, a store over limits.total_bytes is
// brought back under it (and at the end of each turn, pruneOverLimit). It reads the
// index only (no walk of the blob folder), first with three aggregates that
// say whether anything can be due (the usual answer being no), and removes
// at most sessionEndLimit outputs.
func tendAtSessionEnd(ctx context.Context, c *Call) (*Reply, error) {
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	opt := prune.Options{Now: c.Env.Now(), Limit: sessionEndLimit}
	c.removeCopyLeftovers(opt.Now)
	switch c.Event.Reason {
	case "clear", "logout", "prompt_input_exit":
		opt.Session = c.Event.SessionID
		if err := pin.DirIn(c.Dirs.State).Clear(c.Event.SessionID); err != nil {
			c.logf("SessionEnd session=%s: pending pins: %v", c.Event.SessionID, err)
		}
	default:
		r, l := c.Config.Retention, c.Config.Limits
		due, err := st.PruneDue(ctx, opt.Now.Add(-min(r.Default, r.Retrieved, r.NeverRetrieved)), l.EntriesPerSession, l.TotalBytes)
		if err != nil || !due {
			return nil, err
		}
	}
	return nil, c.prune(ctx, opt)
}

// pruneOverLimit brings a store that has passed limits.total_bytes back
// under it at the end of a turn, so that one long session cannot grow the
// store without bound before it ends. Its check is one aggregate over the
// blob rows; the work happens only past the limit.
func pruneOverLimit(ctx context.Context, c *Call) (*Reply, error) {
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	size, err := st.StoredBytes(ctx)
	if err != nil || size <= c.Config.Limits.TotalBytes {
		return nil, err
	}
	return nil, c.prune(ctx, prune.Options{Now: c.Env.Now(), Limit: sessionEndLimit})
}

// prune plans and runs a prune of the store.
func (c *Call) prune(ctx context.Context, opt prune.Options) error {
	st, err := c.Store()
	if err != nil {
		return err
	}
	state, err := prune.Read(ctx, st)
	if err != nil {
		return err
	}
	plan := prune.Make(state, c.Config, opt)
	if len(plan.Items) == 0 {
		return nil
	}
	res, err := prune.Run(ctx, st, plan)
	if lerr := prune.Record(c.Dirs.Removals(), plan, res, c.Env.Now()); lerr != nil && err == nil {
		err = lerr
	}
	return err
}

// removeCopyLeftovers deletes the temporary files of readable copies whose
// write was interrupted in this session's tool-results folder: one read of
// a folder, at the end of the session.
func (c *Call) removeCopyLeftovers(now time.Time) {
	dir, err := claudecode.SessionDir(c.Event.TranscriptPath, c.Event.SessionID)
	if err != nil {
		return
	}
	files, err := prune.CopyLeftovers([]string{claudecode.ToolResultsDir(dir)}, now.Add(-prune.Grace))
	if err == nil {
		_, err = prune.RemoveFiles(files)
	}
	if err != nil {
		c.logf("SessionEnd session=%s: unfinished copies: %v", c.Event.SessionID, err)
	}
}
