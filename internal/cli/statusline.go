package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// statusInputLimit bounds what is read from the client: its statusLine
// JSON is a few kilobytes.
const statusInputLimit = 1 << 20

// estimateLimit is the largest transcript the statusline estimates with
// the tokenizer while no usage is recorded; past it, usage always exists.
const estimateLimit = 8 << 20

var statuslineCmd = &command{
	name:    "statusline",
	usage:   "statusline [--plain]",
	summary: "draw the client's statusline: context used, distance to auto-compaction",
	group:   groupClient,
	long: `What the client runs as its statusLine (set it up with ` + "`ctxkeep install --statusline`" + `): reads the
statusLine JSON from stdin and prints one line, e.g.

  ▰▰▰▰▱▱▱▱▱▱ 39% 77.4k/200k · auto-compact in 89.6k · kept out ~12k (7)

— context used of the window (the client's reported window when it gives one), the distance to
auto-compaction, what swap kept out of this session as the transcript shows it: the replacements
the client applied and the outputs the wrapper printed, with the ones not checked yet (checked at
the end of each turn) and not applied named apart, "kept out ~12k (5; 2 unchecked, 1 not
applied)". Green, then yellow from the first warning level, red from the last (--plain or
NO_COLOR for none). Before any usage is recorded it shows
an estimate, marked ~… (estimate); a window inferred from a context larger than the configured
one is marked (window inferred). It reads the transcript from a saved cursor, so a call costs
the same on any transcript size, and it always exits 0: a problem is printed as the line.`,
	examples: []string{`echo '{"session_id":"…","transcript_path":"…"}' | ctxkeep statusline --plain`},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &statuslineOptions{}
		fs.BoolVar(&o.plain, "plain", false, "no colours (also NO_COLOR)")
		return o.run
	},
}

type statuslineOptions struct{ plain bool }

// run draws the client's statusline from its stdin JSON. It always exits
// 0 and prints one line: a statusline that fails shows nothing, which
// helps nobody.
func (o *statuslineOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("statusline", pos); err != nil {
		return err
	}
	line, err := a.statusline(ctx, !o.plain && a.Getenv("NO_COLOR") == "")
	if err != nil {
		line = "ctxkeep: " + err.Error()
	}
	fmt.Fprintln(a.Stdout, line)
	return nil
}

func (a *app) statusline(ctx context.Context, color bool) (string, error) {
	data, err := io.ReadAll(io.LimitReader(a.Stdin, statusInputLimit))
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
	cfg, _, err := a.config()
	if err != nil {
		return "", err
	}
	d, err := a.dirs()
	if err != nil {
		return "", err
	}
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
		Limits: watch.LimitsFor(cfg, st.Model, st.Window, st.Peak, watch.ReadClientEnv(a.Getenv)),
		Levels: watch.Levels(cfg.Watch),
	}
	a.gaugeTokens(&g, &st, in)
	st.SwappedOut = a.keptOut(ctx, d.IndexDB(), in.SessionID, st.SwappedOut)
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
func (a *app) gaugeTokens(g *watch.Gauge, st *watch.StatusState, in watch.StatusInput) {
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
	if in.TranscriptPath == "" || st.Cursor.Offset > estimateLimit {
		return
	}
	if st.Estimate == nil || st.Estimate.Offset != st.Cursor.Offset {
		n, err := estimate(in.TranscriptPath)
		if err != nil {
			return
		}
		st.Estimate = &watch.Estimate{Tokens: n, Offset: st.Cursor.Offset}
	}
	g.Tokens, g.Known, g.Estimated = st.Estimate.Tokens, st.Estimate.Tokens > 0, true
}

// estimate counts what the model would be sent from a transcript with the
// offline tokenizer and the client's safety margin.
func estimate(path string) (int64, error) {
	f, err := transcript.ReadFileLimited(path, transcript.Cursor{}, transcript.ReadLimits{Bytes: estimateLimit, Line: estimateLimit})
	if err != nil {
		return 0, err
	}
	live, _ := transcript.Live(f.Records)
	cats, _ := breakdown.Categorize(live, breakdown.Tokenizer())
	var n int64
	for _, c := range cats {
		n += c.Tokens
	}
	return breakdown.WithMargin(n), nil
}

// keptOut returns what swap kept out of the session. The index is read
// only when its files changed since the figures were last read (a stat of
// two files otherwise), and opened without migrating, like the hooks do.
func (a *app) keptOut(ctx context.Context, indexPath, session string, last *watch.SwappedOut) *watch.SwappedOut {
	stamp := "2|" + fileStamp(indexPath) + "|" + fileStamp(indexPath+"-wal") // 2: figures as the proof counts them
	if last != nil && last.Stamp == stamp {
		return last
	}
	if a.Backends.OpenLocal == nil {
		return last
	}
	st, err := a.Backends.OpenLocal(ctx, indexPath, "", ctxkeep.OpenExisting, a.Now)
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
