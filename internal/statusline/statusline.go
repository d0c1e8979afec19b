// Package statusline draws the client's statusline: what `ctxkeep
// statusline` and `ctxkeep-hook statusline` print on each redraw (the
// client runs it every few hundred milliseconds while a session is shown):
// the context used, the distance to auto-compaction, what swap kept out.
// It reads the transcript from a saved cursor and the index only when it
// changed, so a call costs the same on any transcript size.
package statusline

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// statusInputLimit bounds what is read from the client: its statusLine
// JSON is a few kilobytes.
const statusInputLimit = 1 << 20

// EstimateLimit is the largest transcript the statusline estimates while
// no usage is recorded; past it, usage always exists.
const EstimateLimit = 8 << 20

// Estimator counts the tokens the model would be sent from a transcript,
// before the client has recorded any usage. The tokenizer is linked in
// ctxkeep, not in the lean hook executable, which asks ctxkeep for it
// (`ctxkeep statusline --estimate`): only before a session's first
// response, once per transcript size, the estimate kept in the state.
type Estimator func(transcriptPath string) (int64, error)

// Run reads the statusLine JSON from stdin and prints one line, always
// (a problem is printed as the line), and returns 0: a statusline that
// fails shows nothing, which helps nobody. estimate may be nil (no
// estimate before the first response).
func Run(env app.Env, plain bool, stdin io.Reader, stdout io.Writer, estimate Estimator) int {
	line, err := "", error(nil)
	a, err := app.New(env)
	if err == nil {
		r := &run{App: a, stdin: stdin, estimate: estimate}
		line, err = r.line(context.Background(), !plain && env.Getenv("NO_COLOR") == "")
		a.Close()
	}
	if err != nil {
		line = "ctxkeep: " + err.Error()
	}
	fmt.Fprintln(stdout, line)
	return 0
}

type run struct {
	*app.App
	stdin    io.Reader
	estimate Estimator
}

func (r *run) line(ctx context.Context, color bool) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r.stdin, statusInputLimit))
	if err != nil {
		return "", err
	}
	in, err := watch.ParseStatusInput(data)
	if err != nil {
		return "", err
	}
	if err := ctxkeep.ValidSessionID(in.SessionID); err != nil {
		return "", fmt.Errorf("statusline input: %w", err)
	}
	cfg, err := r.Config()
	if err != nil {
		return "", err
	}
	d := r.Dirs
	path := watch.StatusPath(watch.Dir(d.State), in.SessionID)
	var st watch.StatusState
	if err := watch.Load(path, &st); err != nil {
		return "", err
	}
	if in.TranscriptPath != "" {
		if err := st.AdvanceWithin(in.TranscriptPath, watch.TranscriptLimits(cfg)); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	if in.ContextWindow != nil && in.ContextWindow.Size > 0 {
		st.Window = in.ContextWindow.Size
	}
	if st.Model = st.Usage.Model; st.Model == "" {
		st.Model = in.Model.ID
	}
	g := watch.Gauge{
		Limits: watch.LimitsFor(cfg, st.Model, st.Window, st.Peak, watch.ReadClientEnv(r.Getenv)),
		Levels: watch.Levels(cfg.Watch),
	}
	r.gaugeTokens(&g, &st, in)
	st.SwappedOut = r.keptOut(ctx, d.IndexDB(), in.SessionID, st.SwappedOut)
	g.SwappedOut = st.SwappedOut
	if err := watch.Save(path, &st); err != nil {
		return "", err
	}
	return g.Line(color), nil
}

// gaugeTokens fills in the context size: the transcript's exact usage;
// else the client's own current_usage; else, before any response, the
// client's kind of estimate (tokenizer × 4/3), made once per transcript
// size.
func (r *run) gaugeTokens(g *watch.Gauge, st *watch.StatusState, in watch.StatusInput) {
	u := st.Usage
	switch {
	case u.Compacted:
		g.Tokens, g.Known, g.Compacted = u.Tokens, u.Tokens > 0, true
		return
	case u.Known():
		g.Tokens, g.Known = u.Tokens, true
		return
	}
	if cw := in.ContextWindow; cw != nil && cw.CurrentUsage != nil {
		if n := cw.CurrentUsage.Context() + cw.CurrentUsage.OutputTokens; n > 0 {
			g.Tokens, g.Known = n, true
			return
		}
	}
	if in.TranscriptPath == "" || st.Cursor.Offset > EstimateLimit {
		return
	}
	if st.Estimate == nil || st.Estimate.Offset != st.Cursor.Offset {
		if r.estimate == nil {
			return // nothing to estimate with: the gauge waits for the first response
		}
		n, err := r.estimate(in.TranscriptPath)
		if err != nil {
			return
		}
		st.Estimate = &watch.Estimate{Tokens: n, Offset: st.Cursor.Offset}
	}
	g.Tokens, g.Known, g.Estimated = st.Estimate.Tokens, st.Estimate.Tokens > 0, true
}

// keptOut returns what swap kept out of the session. The index is read
// only when its files changed since the figures were last read (a stat of
// two files otherwise), and opened without migrating, like the hooks do.
func (r *run) keptOut(ctx context.Context, indexPath, session string, last *watch.SwappedOut) *watch.SwappedOut {
	stamp := "2|" + fileStamp(indexPath) + "|" + fileStamp(indexPath+"-wal") // 2: figures as the proof counts them
	if last != nil && last.Stamp == stamp {
		return last
	}
	if r.Backends.OpenLocal == nil {
		return last
	}
	st, err := r.Backends.OpenLocal(ctx, indexPath, "", ctxkeep.OpenExisting, r.Now)
	if err != nil {
		return last
	}
	defer st.Close()
	swaps, err := st.Swaps(ctx, session)
	if err != nil {
		return last
	}
	k := watch.KeptOutOf(swaps[session])
	k.Stamp = stamp
	return k
}

// fileStamp identifies a file's state by size and modification time.
func fileStamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d@%d", st.Size(), st.ModTime().UnixNano())
}
