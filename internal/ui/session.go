package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// sessionData is one session's page.
type sessionData struct {
	S        ctxkeep.ArchivedSession
	Title    string
	Model    string
	Gauge    gaugeView
	Chart    *chartData
	Turns    []turnView
	Other    []outputChip // stored outputs no archived step names (a subagent's, a step not archived yet)
	Outputs  int
	Compacts []compactionView
	Warnings []warning
	Kept     ctxkeep.Proof
	KeptTok  int64
	Last     string // "turn.step" of the last step shown: live updates go on from there
	Before   int    // the page shows the turns before this one (0: the latest)
	Earlier  int    // the first turn shown, when earlier ones are not
	Hidden   int    // steps not shown
	Problem  string // why the transcript could not be read, if it could not
}

// gaugeView is the context now against the client's thresholds.
type gaugeView struct {
	Tokens, Window, AutoCompact, Warning, Away int64
	Used, WarnAt, CompactAt                    float64 // percent of the window
	Level                                      string  // ok, notice, warn, urgent
	Known, On, Inferred                        bool
	Label                                      string
}

type chartData struct {
	breakdown.ChartView
	Readout  string // JSON, for the readout on hover
	Warnings []chartMark
}

type chartMark struct {
	X     float64
	Title string
}

type compactionView struct {
	N       int // 1-based
	After   int // responses before it
	Trigger string
	Pre     int64
	Post    int64
	When    string
	Restore string // what ctxkeep's restore block put back, "" when the transcript holds none
}

type turnView struct {
	N      int
	Prompt string
	Steps  []stepView
}

type stepView struct {
	Key      string
	Place    string
	Turn     int
	Step     int
	Kind     string
	Time     string
	Summary  string
	Tools    []string
	Commands []commandView
	Errors   []string
	Outputs  []outputChip
}

type commandView struct {
	Run     string
	Exit    int
	Failed  bool
	Outcome string
}

// outputChip is a stored output as a timeline shows it.
type outputChip struct {
	ID        string
	Tool      string
	Input     string
	Chars     int
	ViewChars int
	Tokens    int64 // kept out, (original − view) / 4
	Status    string
	Pin       string
	Kind      string
	Call      string // Input, shortened
	Path      bool   // Call is a file's path: cut at its start, so that the file's name shows
	Size      string // "21,881 → 1,218 chars"
	Class     string // Status as a class name
}

func chipOf(e ctxkeep.Entry) outputChip {
	c := outputChip{ID: e.ID, Tool: e.Tool, Input: shown(e.Input), Chars: e.Chars, ViewChars: e.ViewChars,
		Tokens: int64(max(0, e.Chars-e.ViewChars)) / 4, Status: breakdown.StatusOf(e), Pin: e.PinLevel.String(), Kind: e.Kind}
	c.Call, c.Path = callShort(90, c.Input), isPath(c.Input)
	c.Size = watch.Thousands(int64(c.Chars)) + " → " + watch.Thousands(int64(c.ViewChars)) + " chars"
	c.Class = strings.ReplaceAll(c.Status, " ", "-")
	return c
}

// cutLine is the first line of s, cut to n bytes.
func cutLine(s string, n int) string { return text.Cut(text.FirstLine(s), n) }

func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request) {
	before, _ := strconv.Atoi(r.URL.Query().Get("before"))
	at, _ := strconv.Atoi(r.URL.Query().Get("turn"))
	d, err := s.sessionData(r.Context(), r.PathValue("id"), max(before, 0), max(at, 0))
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		s.notFound(w, r, err.Error())
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "session", "Session "+d.S.ID[:min(8, len(d.S.ID))], d)
}

// archived finds a session of the archive by its id or a unique prefix.
func (s *Server) archived(ctx context.Context, id string) (ctxkeep.ArchivedSession, error) {
	all, err := s.archivedAll(ctx)
	if err != nil {
		return ctxkeep.ArchivedSession{}, err
	}
	ids := make([]string, len(all))
	for i, a := range all {
		ids[i] = a.ID
	}
	match, err := recall.MatchSession(ids, id, "in the archive")
	if err != nil {
		return ctxkeep.ArchivedSession{}, err
	}
	return all[slices.IndexFunc(all, func(a ctxkeep.ArchivedSession) bool { return a.ID == match })], nil
}

// stepWindow is about how many steps a session page shows, in whole
// turns: the latest, or those before a turn (?before=N); links lead to
// the rest. A page of a thousand steps is read at a glance; five thousand
// only slow it down.
const stepWindow = 1000

// A link to a step (a search result's) names its turn (?turn=N): when the
// latest steps do not reach back to it, the page shows the turns up to
// it.
func (s *Server) sessionData(ctx context.Context, id string, before, turn int) (*sessionData, error) {
	a, err := s.archived(ctx, id)
	if err != nil {
		return nil, err
	}
	d := &sessionData{S: a, Title: shown(a.Prompt)}
	heads, err := s.heads(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	entries, err := s.o.Store.Entries(ctx, ctxkeep.EntryFilter{Session: a.ID})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]ctxkeep.Entry, len(entries))
	var swaps []breakdown.Swap
	for _, e := range entries {
		byID[e.ID] = e
		if e.AgentID == "" {
			swaps = append(swaps, breakdown.SwapOf(e))
		}
		switch st := breakdown.StatusOf(e); {
		case st == breakdown.Applied || st == breakdown.Printed:
			d.Kept.KeptOutChars += int64(max(0, e.Chars-e.ViewChars))
			if st == breakdown.Applied {
				d.Kept.Applied++
			} else {
				d.Kept.Printed++
			}
		case st == breakdown.Unchecked:
			d.Kept.Unchecked++
		default:
			d.Kept.NotApplied++
		}
	}
	d.KeptTok, d.Outputs = (d.Kept.KeptOutChars+3)/4, len(entries)
	named := map[string]bool{}
	for _, c := range heads {
		for _, id := range c.Meta.Entries {
			named[id] = true
		}
	}
	if before == 0 && turn > 0 {
		if latest := window(heads, 0); len(latest) > 0 && turn < latest[0].Turn {
			before = turn + 1
		}
	}
	shown := window(heads, before)
	if len(shown) > 0 {
		d.Before = before
		if first := shown[0].Turn; first > heads[0].Turn {
			d.Earlier = first
		}
		d.Hidden = len(heads) - len(shown)
	}
	d.Turns = turnsOf(shown, byID, map[string]bool{})
	for _, e := range entries {
		if !named[e.ID] {
			d.Other = append(d.Other, chipOf(e))
		}
	}
	if n := len(heads); n > 0 {
		d.Last = fmt.Sprintf("%d.%d", heads[n-1].Turn, heads[n-1].Step)
		for i := n - 1; i >= 0; i-- {
			if heads[i].Conversation() {
				d.Last = fmt.Sprintf("%d.%d", heads[i].Turn, heads[i].Step)
				break
			}
		}
	}
	s.sessionUsage(d, swaps)
	return d, nil
}

// sessionUsage reads the transcript: the chart, the gauge, compactions
// with their restore blocks, warnings.
func (s *Server) sessionUsage(d *sessionData, swaps []breakdown.Swap) {
	a := d.S
	usage, peak := a.Usage, a.Usage.Tokens
	var tl breakdown.Timeline
	if a.Transcript != "" {
		sc, err := s.scans.get(a.Transcript, a.Agent, s.readLimits())
		if err == nil {
			tl = sc.timeline(swaps)
			usage, peak = sc.usage, max(sc.peak, a.Usage.Tokens)
			if sc.window > 0 {
				usage.Window = sc.window
			}
			d.Warnings = slices.Clone(sc.warnings)
			restores := slices.Clone(sc.restores)
			sc.mu.Unlock()
			for i, c := range tl.Compactions {
				v := compactionView{N: i + 1, After: c.After, Trigger: c.Trigger, Pre: c.PreTokens, Post: c.PostTokens, When: dateOf(c.Time)}
				for _, r := range restores {
					if r.After == i+1 {
						v.Restore = r.Text
						break
					}
				}
				d.Compacts = append(d.Compacts, v)
			}
			if n := len(d.Compacts); n > 0 && a.Agent == ctxkeep.AgentGemini && d.Compacts[n-1].Restore == "" {
				d.Compacts[n-1].Restore = s.geminiRestored(a.ID)
			}
		} else {
			d.Problem = "the transcript could not be read: " + shown(err.Error())
		}
	} else {
		d.Problem = "the archive does not say where this session's transcript is"
	}
	for _, p := range tl.Points {
		peak = max(peak, p.Tokens)
	}
	d.Model = usage.Model
	l := s.o.Limits(a.Agent, usage.Model, usage.Window, peak)
	d.Gauge = gaugeOf(usage.Tokens, l)
	if len(tl.Points) > 0 {
		c := &chartData{ChartView: breakdown.NewChart(tl, l)}
		pts, _ := json.Marshal(breakdown.Readout(tl))
		c.Readout = string(pts)
		for _, wv := range d.Warnings {
			at := min(max(wv.At, 1), len(tl.Points))
			ro := breakdown.Readout(breakdown.Timeline{Points: tl.Points[:at]})
			if len(ro) > 0 {
				x := ro[len(ro)-1][0].(float64)
				c.Warnings = append(c.Warnings, chartMark{X: x, Title: cutText(wv.Text, 240)})
			}
		}
		d.Chart = c
	}
}

// geminiRestored is the restore block ctxkeep's hooks gave a Gemini CLI
// session after its latest compression, as they kept it (the chat holds
// none: the CLI keeps no hook's edit of a request), redacted; "" when
// there is none.
func (s *Server) geminiRestored(session string) string {
	if s.o.StateDir == "" || session == "" || filepath.Base(session) != session || strings.HasPrefix(session, ".") {
		return ""
	}
	data, err := fsx.ReadRegular(gemini.RestoredFile(filepath.Join(s.o.StateDir, "keep"), session), 4<<20)
	if err != nil {
		return ""
	}
	var r gemini.Restored
	if json.Unmarshal(data, &r) != nil {
		return ""
	}
	return shown(r.Block)
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:n]) + "…"
}

// gaugeOf is the gauge of tokens under l.
func gaugeOf(tokens int64, l watch.Limits) gaugeView {
	g := gaugeView{Tokens: tokens, Window: l.Window, AutoCompact: l.AutoCompact, Warning: l.Warning, Known: tokens > 0,
		On: l.AutoCompactOn, Inferred: l.Inferred,
		Used: min(l.OfWindow(tokens), 100), WarnAt: l.OfWindow(l.Warning), CompactAt: l.OfWindow(l.AutoCompact)}
	g.Away = max(0, l.ToCompaction(tokens))
	switch lv := l.OfThreshold(tokens); {
	case lv >= 90:
		g.Level = "urgent"
	case lv >= 80:
		g.Level = "warn"
	case lv >= 70:
		g.Level = "notice"
	default:
		g.Level = "ok"
	}
	return g
}

// turnsOf groups a session's chunk heads into turns of steps, each with
// the stored outputs its calls produced (named marks them).
func turnsOf(heads []ctxkeep.Chunk, byID map[string]ctxkeep.Entry, named map[string]bool) []turnView {
	var turns []turnView
	for _, c := range heads {
		if len(turns) == 0 || turns[len(turns)-1].N != c.Turn {
			turns = append(turns, turnView{N: c.Turn})
		}
		t := &turns[len(turns)-1]
		if c.Prompt != "" && t.Prompt == "" {
			t.Prompt = shown(c.Prompt)
		}
		t.Steps = append(t.Steps, stepOf(c, byID, named))
	}
	return turns
}

func stepOf(c ctxkeep.Chunk, byID map[string]ctxkeep.Entry, named map[string]bool) stepView {
	v := stepView{Key: c.Key, Place: recall.Place(c), Turn: c.Turn, Step: c.Step, Kind: c.Kind, Time: localTime(c.End).Format("15:04"),
		Summary: cutLine(shown(c.Summary), 220)}
	for _, t := range c.Meta.Tools {
		v.Tools = append(v.Tools, shown(t))
	}
	for _, cmd := range c.Meta.Commands {
		v.Commands = append(v.Commands, commandView{Run: cutLine(shown(cmd.Run), 150), Exit: cmd.Exit, Failed: cmd.Failed(), Outcome: shown(cmd.Outcome)})
	}
	for _, e := range c.Meta.Errors {
		v.Errors = append(v.Errors, cutLine(shown(e), 220))
	}
	for _, id := range c.Meta.Entries {
		if e, ok := byID[id]; ok {
			v.Outputs = append(v.Outputs, chipOf(e))
			named[id] = true
		}
	}
	return v
}

// readLimits bound each read of a transcript (limits.transcript_*).
func (s *Server) readLimits() transcript.ReadLimits { return watch.TranscriptLimits(s.o.Config) }

// window is the steps a page shows: whole turns, the latest (before 0) or
// those before the turn before, about stepWindow steps.
func window(heads []ctxkeep.Chunk, before int) []ctxkeep.Chunk {
	end := len(heads)
	if before > 0 {
		end = 0
		for end < len(heads) && heads[end].Turn < before {
			end++
		}
	}
	start := end
	for start > 0 && (end-start < stepWindow || heads[start-1].Turn == heads[start].Turn) {
		start--
	}
	return heads[start:end]
}

// headCache keeps the chunk heads of the sessions pages looked at lately,
// while their archive cursor stands still: a session of 5,000 steps is
// read from the index once, then again only when the hooks archived more
// of it.
type headCache struct {
	mu    sync.Mutex
	m     map[string]cachedHeads
	order []string
}

type cachedHeads struct {
	cur   ctxkeep.ArchiveCursor
	heads []ctxkeep.Chunk
}

func (s *Server) heads(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	cur, _, err := s.o.Store.Cursor(ctx, session)
	if err != nil {
		return nil, err
	}
	cur.Usage = ctxkeep.Usage{}
	c := &s.headc
	c.mu.Lock()
	if h, ok := c.m[session]; ok && h.cur == cur {
		c.mu.Unlock()
		return h.heads, nil
	}
	c.mu.Unlock()
	heads, err := s.o.Store.ChunkHeads(ctx, session)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedHeads{}
	}
	c.m[session] = cachedHeads{cur: cur, heads: heads}
	c.order = append(slices.DeleteFunc(c.order, func(id string) bool { return id == session }), session)
	for len(c.order) > keepScans {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	return heads, nil
}
