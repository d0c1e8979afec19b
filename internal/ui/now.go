package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/prune"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// The Now page answers "what should I remove, compress or pin right
// now?" for the latest session of each project: what fills its context
// (by category, the largest items, stale outputs and re-reads, as `ctxkeep
// context` counts them: internal/breakdown), what ctxkeep already kept
// out, and what a pin would change (internal/prune's retention).

// nowProjects is how many projects the page shows.
const nowProjects = 6

type nowData struct {
	Projects []nowProject
}

type nowProject struct {
	S        ctxkeep.ArchivedSession
	Title    string
	Gauge    gaugeView
	Groups   []groupBar
	Counted  int64
	Largest  []itemView
	Stale    breakdown.Stale
	StaleTok int64
	Kept     []keptView
	KeptTok  int64
	Problem  string
}

type groupBar struct {
	Name   string
	Tokens int64
	Share  float64 // percent of what was counted
	Offset float64
	Class  string
}

type itemView struct {
	Tool   string
	Input  string
	Tokens int64
	Stale  bool
	Output *outputChip // when ctxkeep stored it
}

type keptView struct {
	Chip     outputChip
	Expiry   string // what happens to it as it is pinned now
	IfPinned string // what a pin (or unpinning) would change
}

func (s *Server) nowPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	all, err := s.archivedAll(ctx)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sessions, _ := s.o.Store.Sessions(ctx)
	d := &nowData{}
	seen := map[string]bool{}
	for _, a := range all {
		if seen[a.Project] || len(d.Projects) == nowProjects {
			continue
		}
		seen[a.Project] = true
		p, err := s.nowOf(ctx, a, sessions[a.ID].LastSeen)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		d.Projects = append(d.Projects, p)
	}
	// Keep the breakdowns of the sessions shown only: a server that runs
	// for days sees many sessions become the latest and then not.
	nowMu.Lock()
	for path := range nowCache {
		if !slices.ContainsFunc(d.Projects, func(p nowProject) bool { return p.S.Transcript == path }) {
			delete(nowCache, path)
		}
	}
	nowMu.Unlock()
	s.render(w, r, "now", "Now", d)
}

func (s *Server) nowOf(ctx context.Context, a ctxkeep.ArchivedSession, seen time.Time) (nowProject, error) {
	p := nowProject{S: a, Title: shown(a.Prompt)}
	entries, err := s.o.Store.Entries(ctx, ctxkeep.EntryFilter{Session: a.ID})
	if err != nil {
		return p, err
	}
	byCall, byView := map[string]ctxkeep.Entry{}, map[string]ctxkeep.Entry{}
	now := s.o.Now()
	for _, e := range entries {
		byCall[e.ToolUseID] = e
		if e.Replacement != "" {
			byView[e.Replacement] = e
		}
		k := keptView{Chip: chipOf(e)}
		if k.Chip.Status == breakdown.Applied || k.Chip.Status == breakdown.Printed {
			p.KeptTok += k.Chip.Tokens
		}
		unpinned := e
		unpinned.PinLevel = ctxkeep.PinNone
		at := prune.Expiry(unpinned, later(seen, e.CreatedAt), s.o.Config.Retention)
		when := "the next prune takes it"
		if at.After(now) {
			when = "prune may take it after " + dateOf(at)
		}
		switch e.PinLevel {
		case ctxkeep.PinNone:
			k.Expiry, k.IfPinned = "unpinned: "+when, "a pin keeps it past retention (soft) or for good (hard)"
		case ctxkeep.PinSoft:
			k.Expiry, k.IfPinned = "soft pin: kept past retention", "unpinned, "+when
		default:
			k.Expiry, k.IfPinned = "hard pin: never pruned", "unpinned, "+when
		}
		p.Kept = append(p.Kept, k)
	}
	slices.SortStableFunc(p.Kept, func(x, y keptView) int { return cmp.Compare(y.Chip.Chars, x.Chip.Chars) })
	p.Kept = p.Kept[:min(len(p.Kept), 12)]
	if dialect(a.Agent) != nil || a.Transcript == "" {
		p.Gauge = gaugeOf(a.Usage.Tokens, s.o.Limits(a.Agent, a.Usage.Model, a.Usage.Window, a.Usage.Tokens))
		if a.Transcript != "" {
			file := "rollout"
			if a.Agent == ctxkeep.AgentGemini {
				file = "chat"
			}
			p.Problem = "a " + agentName(a.Agent) + " " + file + " gives the context's size, not its parts: below, its largest tool outputs since the last " + compactionWord(a.Agent)
			largest, err := liveLargest(a.Transcript, a.Agent)
			if err != nil {
				p.Problem = "the " + file + " could not be read: " + shown(err.Error())
			}
			p.Largest = itemsOf(largest, byCall, byView, nil)
		}
		return p, nil
	}
	r, err := s.breakdownOf(a)
	if err != nil {
		p.Gauge = gaugeOf(a.Usage.Tokens, s.o.Limits(a.Agent, a.Usage.Model, a.Usage.Window, a.Usage.Tokens))
		p.Problem = "the transcript could not be read: " + shown(err.Error())
		return p, nil
	}
	p.Gauge = gaugeOf(r.report.Tokens, r.report.Limits)
	p.Counted, p.Stale = r.report.Counted, r.report.Stale
	var offset float64
	for _, g := range breakdown.Grouped(r.report.Categories) {
		share := 0.0
		if r.report.Counted > 0 {
			share = 100 * float64(g.Tokens) / float64(r.report.Counted)
		}
		p.Groups = append(p.Groups, groupBar{Name: breakdown.Label(g.Name), Tokens: g.Tokens, Share: share, Offset: offset, Class: "c-" + g.Name})
		offset += share
	}
	stale := map[string]bool{}
	for _, id := range r.report.Stale.StaleCalls {
		stale[id] = true
	}
	p.Largest = itemsOf(r.largest, byCall, nil, stale)
	for _, v := range p.Largest {
		if v.Stale {
			p.StaleTok += v.Tokens
		}
	}
	return p, nil
}

// itemsOf are the largest items as the page lists them: marked when stale,
// linked to the output ctxkeep stored of the call, found by the call's id
// or (Gemini CLI, whose hooks get no call id) by the view the model got.
func itemsOf(largest []largeItem, byCall, byView map[string]ctxkeep.Entry, stale map[string]bool) []itemView {
	var out []itemView
	for _, it := range largest {
		v := itemView{Tool: it.tool, Input: shown(it.input), Tokens: it.tokens, Stale: stale[it.id]}
		e, ok := byCall[it.id]
		if !ok || it.id == "" {
			e, ok = byView[it.view]
			ok = ok && it.view != ""
		}
		if ok {
			c := chipOf(e)
			v.Output = &c
		}
		out = append(out, v)
	}
	return out
}

// liveLargest are the ten largest tool outputs of a Codex rollout or a
// Gemini CLI chat since its last compaction, as the model got them (a
// replacement's size when ctxkeep's took effect), kept while the file does
// not change.
func liveLargest(path, agent string) ([]largeItem, error) {
	f, st, err := fsx.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	f.Close()
	nowMu.Lock()
	defer nowMu.Unlock()
	if b := nowCache[path]; b != nil && b.size == st.Size() && b.mod.Equal(st.ModTime()) {
		return b.largest, nil
	}
	outs, err := liveOutputs(path, agent)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(outs, func(x, y liveOutput) int { return cmp.Compare(len(y.seen), len(x.seen)) })
	counter := breakdown.Tokenizer()
	b := &nowBreakdown{size: st.Size(), mod: st.ModTime()}
	for _, o := range outs[:min(len(outs), 10)] {
		it := largeItem{id: o.id, tool: o.tool, input: inputLine(o.input), tokens: breakdown.WithMargin(int64(counter.Count(o.seen)))}
		if agent == ctxkeep.AgentGemini && gemini.IsView(o.seen) {
			it.view = proof.Sum(o.seen)
		}
		b.largest = append(b.largest, it)
	}
	nowCache[path] = b
	return b.largest, nil
}

// liveOutput is a tool output the model's context still holds.
type liveOutput struct {
	id, tool, seen string
	input          json.RawMessage
}

// liveOutputs reads them from a Codex rollout or a Gemini CLI chat, with
// the client's own reader.
func liveOutputs(path, agent string) ([]liveOutput, error) {
	var out []liveOutput
	if agent == ctxkeep.AgentGemini {
		outs, err := gemini.LiveOutputs(path)
		for _, o := range outs {
			out = append(out, liveOutput{id: o.ID, tool: o.Tool, seen: o.Seen, input: o.Input})
		}
		return out, err
	}
	outs, err := codex.LiveOutputs(path)
	for _, o := range outs {
		out = append(out, liveOutput{id: o.ID, tool: o.Tool, seen: o.Seen, input: o.Input})
	}
	return out, err
}

// inputLine is a call's input in one line: the command, the file, the
// pattern (of a JSON object's first such field).
func inputLine(input json.RawMessage) string {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, k := range []string{"command", "cmd", "file_path", "absolute_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt"} {
		switch v := in[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any: // a command as its arguments
			var parts []string
			for _, a := range v {
				if s, ok := a.(string); ok {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, " ")
			}
		}
	}
	return ""
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// nowBreakdown is a session's breakdown, kept while its transcript does
// not change: counting tokens is the page's slowest part.
type nowBreakdown struct {
	size    int64
	mod     time.Time
	report  *breakdown.Report
	largest []largeItem
}

type largeItem struct {
	id, tool, input string
	tokens          int64
	view            string // the hash of a Gemini CLI view (proof.Sum), which names the output ctxkeep stored
}

var (
	nowMu    sync.Mutex
	nowCache = map[string]*nowBreakdown{}
)

func (s *Server) breakdownOf(a ctxkeep.ArchivedSession) (*nowBreakdown, error) {
	f, st, err := fsx.OpenRegular(a.Transcript)
	if err != nil {
		return nil, err
	}
	f.Close()
	nowMu.Lock()
	defer nowMu.Unlock()
	if b := nowCache[a.Transcript]; b != nil && b.size == st.Size() && b.mod.Equal(st.ModTime()) {
		return b, nil
	}
	file, err := transcript.ReadFileLimited(a.Transcript, transcript.Cursor{}, s.readLimits())
	if err != nil {
		return nil, err
	}
	counter := breakdown.Tokenizer()
	rep, err := breakdown.Build(breakdown.Input{Session: a.ID, Transcript: a.Transcript, Records: file.Records,
		Limits:  func(model string, peak int64) watch.Limits { return s.o.Limits(a.Agent, model, 0, peak) },
		Counter: counter, Now: s.o.Now()})
	if err != nil {
		return nil, err
	}
	b := &nowBreakdown{size: st.Size(), mod: st.ModTime(), report: rep}
	live, _ := transcript.Live(file.Records)
	calls, _ := transcript.ToolCalls(live)
	slices.SortStableFunc(calls, func(x, y transcript.ToolCall) int { return cmp.Compare(resultLen(y), resultLen(x)) })
	for _, c := range calls[:min(len(calls), 10)] {
		if c.Result == nil {
			continue
		}
		b.largest = append(b.largest, largeItem{id: c.ID, tool: c.Name, input: callInput(c),
			tokens: breakdown.WithMargin(int64(counter.Count(c.Result.Text())))})
	}
	slices.SortStableFunc(b.largest, func(x, y largeItem) int { return cmp.Compare(y.tokens, x.tokens) })
	nowCache[a.Transcript] = b
	return b, nil
}

func resultLen(c transcript.ToolCall) int {
	if c.Result == nil {
		return 0
	}
	return len(c.Result.Text())
}

// callInput is a call in one line: the command, the file, the pattern.
func callInput(c transcript.ToolCall) string { return inputLine(c.Input) }
