package hook

import (
	"context"

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
// brought back under it: this is where prune runs by itself. It reads the
// index only (no walk of the blob folder), first with three aggregates that
// say whether anything can be due (the usual answer being no), and removes
// at most sessionEndLimit outputs.
func tendAtSessionEnd(ctx context.Context, c *Call) (*Reply, error) {
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	opt := prune.Options{Now: c.Env.Now(), Limit: sessionEndLimit}
	switch c.Event.Reason {
	case "clear", "logout", "prompt_input_exit":
		opt.Session = c.Event.SessionID
		if err := pin.DirIn(c.Dirs.State).Clear(c.Event.SessionID); err != nil {
			c.logf("SessionEnd session=%s: pending pins: %v", c.Event.SessionID, err)
		}
	default:
		r, l := c.Config.Retention, c.Config.Limits
		due, err := st.Index.PruneDue(ctx, opt.Now.Add(-min(r.Default, r.Retrieved, r.NeverRetrieved)), l.EntriesPerSession, l.TotalBytes)
		if err != nil || !due {
			return nil, err
		}
	}
	state, err := prune.Read(ctx, st.Index)
	if err != nil {
		return nil, err
	}
	plan := prune.Make(state, c.Config, opt)
	if len(plan.Items) == 0 {
		return nil, nil
	}
	_, err = prune.Run(ctx, st, plan)
	return nil, err
}
