package purge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Kinds of repairs.
const (
	TornLine      = "torn_line"      // the last line was cut short: dropped
	Unterminated  = "unterminated"   // the last line lacked its '\n': added
	InvalidLine   = "invalid_line"   // not a JSON object: dropped
	BrokenParent  = "broken_parent"  // parentUuid named no record: re-pointed
	MissingResult = "missing_result" // tool_use without tool_result: one added
	OrphanResult  = "orphan_result"  // tool_result without tool_use: removed
)

// Repair is one structural problem and what purge does about it.
type Repair struct {
	Kind   string `json:"kind"`
	Line   int    `json:"line"` // 1-based, in the file as read
	Detail string `json:"detail"`
}

// Plan is what a purge changes in a transcript.
type Plan struct {
	Repairs  []Repair `json:"repairs"`
	Stubs    []*Stub  `json:"stubs"`
	Thinking Thinking `json:"thinking"`

	t       *Transcript
	opt     Options
	drop    map[int]bool           // line index → dropped
	parent  map[int]string         // line index → new parentUuid ("" for null)
	blocks  map[int]map[int]action // line index → content block index → what becomes of it
	inserts map[int][][]byte       // line index → lines to write after it
	keepRaw map[int]bool           // line index → kept as is even if torn (live)
}

// Thinking counts the thinking blocks a purge removes and keeps.
type Thinking struct {
	Removed int   `json:"removed"`
	Bytes   int64 `json:"bytes"` // of the lines or blocks removed
	Kept    int   `json:"kept"`  // in the last turn, or needed by their response
}

// action is what becomes of one content block.
type action struct {
	remove bool
	stub   *Stub
}

// Plan works out the repairs and, unless opt.RepairOnly, the slimming of
// t. It changes nothing: Render writes the result.
func (t *Transcript) Plan(opt Options) *Plan {
	if opt.Threshold == 0 {
		opt.Threshold = DefaultThreshold
	}
	opt.Threshold = max(opt.Threshold, MinThreshold)
	p := &Plan{t: t, opt: opt, drop: map[int]bool{}, parent: map[int]string{}, blocks: map[int]map[int]action{},
		inserts: map[int][][]byte{}, keepRaw: map[int]bool{}}
	p.lines()
	recs := t.records()
	live, _ := transcript.Live(recs) // without its preserved segment if that is lost: as the client sees it
	protected := protectedUUIDs(recs)
	p.pairs(live, protected)
	if !opt.RepairOnly {
		if !opt.KeepThinking {
			p.thinking(recs, live, protected)
		}
		p.slim(recs)
	}
	p.relink()
	sortRepairs(p.Repairs)
	return p
}

// lines drops what is not a record: a torn last line, and lines that are
// not JSON objects.
func (p *Plan) lines() {
	for i := range p.t.Lines {
		l := &p.t.Lines[i]
		switch {
		case l.Torn && p.opt.Live:
			p.keepRaw[i] = true // the client may be writing it now
		case l.Torn && l.Valid:
			p.repair(Unterminated, i, "the last line had no newline; one was added")
		case l.Torn:
			p.drop[i] = true
			p.repair(TornLine, i, fmt.Sprintf("the last line was cut short (%d bytes of unfinished JSON): dropped", len(l.Raw)))
		case !l.Valid && !l.Blank():
			p.drop[i] = true
			p.repair(InvalidLine, i, fmt.Sprintf("not a JSON object (%d bytes): dropped", len(l.Raw)))
		}
	}
}

func (p *Plan) repair(kind string, i int, detail string) {
	p.Repairs = append(p.Repairs, Repair{Kind: kind, Line: i + 1, Detail: detail})
}

// pairs repairs the tool calls of the conversation the client sends: a
// result for every tool_use, a tool_use for every result.
func (p *Plan) pairs(live []transcript.Record, protected map[string]bool) {
	calls, orphans := transcript.ToolCalls(live)
	lastResponse := ""
	if p.opt.Live {
		for _, r := range live {
			if r.Type == transcript.TypeAssistant && r.Message != nil {
				lastResponse = r.Message.ID
			}
		}
	}
	for _, c := range calls {
		if c.Result != nil || (lastResponse != "" && c.Use.Message.ID == lastResponse) {
			continue
		}
		i := c.Use.Line - 1
		p.inserts[i] = append(p.inserts[i], syntheticResult(p.t.SessionID, &p.t.Lines[i].Rec, c))
		p.repair(MissingResult, i, fmt.Sprintf("%s call %s had no result: an error result saying so was added", c.Name, c.ID))
	}
	for _, o := range orphans {
		i := o.Record.Line - 1
		p.removeBlocks(i, protected, func(b transcript.Block) bool {
			return b.Type == transcript.BlockToolResult && b.ToolUseID == o.ToolUseID
		})
		p.repair(OrphanResult, i, fmt.Sprintf("result of %s, whose tool_use is not in the conversation: removed", o.ToolUseID))
	}
}

// removeBlocks removes the content blocks of line i that match, and the
// line itself when nothing else is left in it, unless other records refer
// to it (compaction metadata): then a text block says what was removed.
func (p *Plan) removeBlocks(i int, protected map[string]bool, match func(transcript.Block) bool) {
	rec := &p.t.Lines[i].Rec
	if rec.Message == nil {
		return
	}
	left := 0
	for j, b := range rec.Message.Content.Blocks {
		if match(b) {
			p.act(i, j, action{remove: true})
		} else if !p.blocks[i][j].remove {
			left++
		}
	}
	if left == 0 && !protected[rec.UUID] {
		p.drop[i] = true
	}
}

func (p *Plan) act(i, j int, a action) {
	if p.blocks[i] == nil {
		p.blocks[i] = map[int]action{}
	}
	p.blocks[i][j] = a
}

// protectedUUIDs are the records other records name besides as a parent:
// a compaction's preserved segment, its logical parent, the last prompt's
// leaf. Their lines may be edited but never dropped.
func protectedUUIDs(recs []transcript.Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		if r.LogicalParentUUID != "" {
			out[r.LogicalParentUUID] = true
		}
		if r.LeafUUID != "" {
			out[r.LeafUUID] = true
		}
		if r.CompactMetadata == nil {
			continue
		}
		var meta struct {
			CompactMetadata json.RawMessage `json:"compactMetadata"`
		}
		if json.Unmarshal(r.Raw, &meta) == nil {
			collectStrings(meta.CompactMetadata, out)
		}
	}
	return out
}

// collectStrings adds every string value found in data to out.
func collectStrings(data json.RawMessage, out map[string]bool) {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out[v] = true
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
}

// thinking removes thinking blocks outside the last turn of the
// conversation, whole: a line made only of thinking goes (its children are
// re-pointed at its parent), a line that mixes thinking with other blocks
// loses its thinking blocks. A response left with nothing to say but its
// thinking keeps it.
func (p *Plan) thinking(recs, live []transcript.Record, protected map[string]bool) {
	lastTurn := map[int]bool{}
	if turns := transcript.Turns(live); len(turns) > 0 {
		for _, r := range turns[len(turns)-1].Records {
			lastTurn[r.Line-1] = true
		}
	}
	for _, resp := range transcript.Responses(recs) {
		if !says(resp.Blocks) {
			p.Thinking.Kept += countThinking(resp.Blocks)
			continue
		}
		for _, r := range resp.Records {
			i := r.Line - 1
			n := countThinking(r.Message.Content.Blocks)
			if n == 0 {
				continue
			}
			if lastTurn[i] || p.drop[i] || (protected[r.UUID] && n == len(r.Message.Content.Blocks)) {
				p.Thinking.Kept += n
				continue
			}
			before := p.drop[i]
			p.removeBlocks(i, protected, isThinking)
			p.Thinking.Removed += n
			if p.drop[i] && !before {
				p.Thinking.Bytes += int64(len(p.t.Lines[i].Raw))
			} else {
				p.Thinking.Bytes += thinkingBytes(r.Message.Content.Blocks)
			}
		}
	}
}

func isThinking(b transcript.Block) bool {
	return b.Type == transcript.BlockThinking || b.Type == transcript.BlockRedactedThinking
}

func countThinking(bs []transcript.Block) int {
	n := 0
	for _, b := range bs {
		if isThinking(b) {
			n++
		}
	}
	return n
}

func thinkingBytes(bs []transcript.Block) int64 {
	var n int64
	for _, b := range bs {
		if isThinking(b) {
			n += int64(len(b.Thinking))
		}
	}
	return n
}

// says reports whether a response has something besides thinking: a tool
// call, or text that is not blank (the client drops blank text blocks).
func says(bs []transcript.Block) bool {
	for _, b := range bs {
		switch {
		case isThinking(b):
		case b.Type == transcript.BlockText && strings.TrimSpace(b.Text) == "":
		default:
			return true
		}
	}
	return false
}

// slim plans a stub for every tool result over the threshold whose content
// is text.
func (p *Plan) slim(recs []transcript.Record) {
	calls, _ := transcript.ToolCalls(recs)
	byID := make(map[string]*transcript.ToolCall, len(calls))
	for i := range calls {
		byID[calls[i].ID] = &calls[i]
	}
	for i := range p.t.Lines {
		l := &p.t.Lines[i]
		if !l.Valid || p.drop[i] || l.Rec.Type != transcript.TypeUser || l.Rec.Message == nil {
			continue
		}
		for j, b := range l.Rec.Message.Content.Blocks {
			if b.Type != transcript.BlockToolResult || p.blocks[i][j].remove {
				continue
			}
			text, ok := textOf(b.Content)
			if !ok || len(text) <= p.opt.Threshold || strings.HasPrefix(text, stubMarker) {
				continue
			}
			s := newStub(p.t.SessionID, &l.Rec, b, byID[b.ToolUseID], text)
			p.act(i, j, action{stub: s})
			p.Stubs = append(p.Stubs, s)
		}
	}
}

// textOf returns a tool result's content as text: the string, or its text
// blocks joined by newlines. ok is false when it holds anything else
// (an image): such a result is left alone.
func textOf(c transcript.Content) (string, bool) {
	if c.Blocks == nil {
		return c.String, true
	}
	for _, b := range c.Blocks {
		if b.Type != transcript.BlockText {
			return "", false
		}
	}
	return c.Text(), true
}

// relink keeps the parent chain whole: the children of a dropped line get
// its parent, and a parentUuid naming no record at all gets the record
// just before it in the same thread.
func (p *Plan) relink() {
	exists := map[string]bool{}
	replaced := map[string]string{}
	for i, l := range p.t.Lines {
		switch {
		case !l.Valid || l.Rec.UUID == "":
		case p.drop[i]:
			replaced[l.Rec.UUID] = l.Rec.ParentUUID
		default:
			exists[l.Rec.UUID] = true
		}
	}
	last := map[string]string{} // thread → uuid of its last kept record
	for i, l := range p.t.Lines {
		if !l.Valid || p.drop[i] {
			continue
		}
		thread := fmt.Sprintf("%t/%s", l.Rec.IsSidechain, l.Rec.AgentID)
		if parent := l.Rec.ParentUUID; parent != "" && !exists[parent] {
			target := resolve(parent, replaced)
			switch {
			case target == "" || exists[target]:
				p.parent[i] = target // the nearest kept ancestor, or none: the dropped line was a root
			default:
				p.parent[i] = last[thread]
				p.repair(BrokenParent, i, fmt.Sprintf("parentUuid %s names no record: now %s, the record before it", target, orNull(last[thread])))
			}
		}
		if l.Rec.UUID != "" {
			last[thread] = l.Rec.UUID
		}
	}
}

// resolve follows dropped records up to the first that was not dropped
// ("" for the root).
func resolve(uuid string, replaced map[string]string) string {
	for range len(replaced) + 1 {
		next, dropped := replaced[uuid]
		if !dropped {
			break
		}
		uuid = next
	}
	return uuid
}

func orNull(uuid string) string {
	if uuid == "" {
		return "null (a root)"
	}
	return uuid
}

// changed reports whether line i is written otherwise than it was read.
func (p *Plan) changed(i int) bool {
	_, reparented := p.parent[i]
	return reparented || len(p.blocks[i]) > 0
}

// Changes reports whether the plan changes anything.
func (p *Plan) Changes() bool {
	if len(p.drop) > 0 || len(p.inserts) > 0 {
		return true
	}
	for i := range p.t.Lines {
		if p.changed(i) || (p.t.Lines[i].Torn && !p.keepRaw[i]) {
			return true
		}
	}
	return false
}
