package ui

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A session page needs, of its transcript, the context after every
// response, the compactions, the restore blocks and the warnings ctxkeep
// gave, and where each tool result is (the view the model saw). A
// transcript can be hundreds of megabytes and still growing, so it is read
// once, from a cursor, keeping only that: the lines that can hold them are
// found with a substring search and only those are decoded, as the
// statusline does (internal/watch). The next look reads only what was
// appended.

// scan is what the UI knows of one transcript.
type scan struct {
	mu     sync.Mutex
	path   string
	agent  string
	size   int64
	mod    time.Time
	cursor transcript.Cursor
	mid    bool // the cursor may stand inside a line (a skipped long one)

	recs     []transcript.Record // Claude Code: responses and compactions, trimmed
	tl       breakdown.Timeline  // Codex, Gemini CLI: the usage points and compactions
	usage    ctxkeep.Usage
	peak     int64
	window   int64 // the window the client recorded (Codex, Gemini CLI)
	restores []restore
	warnings []warning
	results  map[string]int64 // tool_use id → offset of the line holding its result
	problems int
}

// restore is what ctxkeep's restore block put back after a compaction.
type restore struct {
	After int // compactions before it
	Line  int
	Text  string // redacted, printable
}

// warning is a warning ctxkeep gave the model.
type warning struct {
	At   int // responses before it
	Line int
	Text string
}

// scanCache keeps the scans of the transcripts pages looked at lately,
// and of every transcript read, its peak: the sessions list shows it.
type scanCache struct {
	mu    sync.Mutex
	m     map[string]*scan
	order []string // least recently used first
	peaks map[string]int64
}

// keepScans is how many transcripts' scans stay in memory.
const keepScans = 8

func newScanCache() *scanCache { return &scanCache{m: map[string]*scan{}, peaks: map[string]int64{}} }

// get returns the scan of path brought up to date, locked: the caller
// unlocks it.
func (c *scanCache) get(path, agent string, lim transcript.ReadLimits) (*scan, error) {
	c.mu.Lock()
	sc := c.m[path]
	if sc == nil || sc.agent != agent {
		sc = &scan{path: path, agent: agent}
		c.m[path] = sc
	}
	c.order = append(slices.DeleteFunc(c.order, func(p string) bool { return p == path }), path)
	for len(c.order) > keepScans {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.mu.Unlock()
	sc.mu.Lock()
	err := sc.advance(lim)
	if err != nil {
		sc.mu.Unlock()
		return nil, err
	}
	c.mu.Lock()
	c.peaks[path] = sc.peak
	c.mu.Unlock()
	return sc, nil
}

// peak is the largest context of a transcript read before, if any.
func (c *scanCache) peak(path string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.peaks[path]
	return p, ok
}

// advance reads what was appended since the last look.
func (sc *scan) advance(lim transcript.ReadLimits) error {
	f, st, err := fsx.OpenRegular(sc.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st.Size() < sc.cursor.Offset {
		*sc = scan{path: sc.path, agent: sc.agent} // replaced: read again
	}
	if st.Size() == sc.size && st.ModTime().Equal(sc.mod) {
		return nil
	}
	for {
		if _, err := f.Seek(sc.cursor.Offset, io.SeekStart); err != nil {
			return err
		}
		lines := transcript.NewLineReader(f, lim, sc.mid)
		for {
			line, n, err := lines.Next()
			if err != nil {
				sc.cursor = lines.End(sc.cursor)
				sc.mid = lines.MidLine()
				if !errors.Is(err, io.EOF) {
					return err
				}
				break
			}
			if line != nil {
				sc.take(line[:len(line)-1], sc.cursor)
			}
			sc.cursor = transcript.Cursor{Offset: sc.cursor.Offset + n, Line: sc.cursor.Line + 1}
		}
		if !lines.More() {
			break
		}
	}
	sc.size, sc.mod = st.Size(), st.ModTime()
	return nil
}

var (
	restoreMark = []byte("ctxkeep restored this session")
	warnMark    = []byte("ctxkeep: the context is at")
	resultMark  = []byte(`"tool_use_id":"`)
)

// take reads one line at cur.
func (sc *scan) take(line []byte, cur transcript.Cursor) {
	if d := dialect(sc.agent); d != nil {
		sc.takeUsage(d, line)
		return
	}
	if sc.results == nil {
		sc.results = map[string]int64{}
	}
	for rest := line; ; {
		i := bytes.Index(rest, resultMark)
		if i < 0 {
			break
		}
		rest = rest[i+len(resultMark):]
		if j := bytes.IndexByte(rest, '"'); j > 0 && j <= 128 {
			sc.results[string(rest[:j])] = cur.Offset
		}
	}
	restoreLine, warnLine := bytes.Contains(line, restoreMark), bytes.Contains(line, warnMark)
	if !restoreLine && !warnLine && !bytes.Contains(line, []byte(`"assistant"`)) && !bytes.Contains(line, []byte(`"compact_boundary"`)) {
		return
	}
	rec, err := transcript.ParseLine(line)
	if err != nil && rec.Type == "" {
		sc.problems++
		return
	}
	rec.Line, rec.Offset = cur.Line+1, cur.Offset
	if !rec.MainThread() {
		return
	}
	if (restoreLine || warnLine) && rec.Type != transcript.TypeAssistant && !hasToolResult(&rec) {
		txt := injected(&rec)
		switch {
		case restoreLine && strings.Contains(txt, string(restoreMark)):
			sc.restores = append(sc.restores, restore{After: sc.compactions(), Line: rec.Line, Text: shown(txt)})
		case warnLine && strings.Contains(txt, string(warnMark)):
			sc.warnings = append(sc.warnings, warning{At: sc.responses(), Line: rec.Line, Text: shown(firstWith(txt, string(warnMark)))})
		}
	}
	switch {
	case rec.IsCompactBoundary():
	case rec.Type == transcript.TypeAssistant && rec.Message != nil && rec.Message.Model != transcript.SyntheticModel:
	default:
		return
	}
	transcript.UpdateUsage(&sc.usage, &rec)
	sc.peak = max(sc.peak, sc.usage.Tokens)
	sc.recs = append(sc.recs, trim(rec))
}

// trim keeps of a record what the timeline reads: no raw line, no text,
// no tool input.
func trim(r transcript.Record) transcript.Record {
	t := transcript.Record{Line: r.Line, Offset: r.Offset, Type: r.Type, Subtype: r.Subtype, Timestamp: r.Timestamp,
		IsSidechain: r.IsSidechain, AgentID: r.AgentID, CompactMetadata: r.CompactMetadata}
	if m := r.Message; m != nil {
		tm := &transcript.Message{ID: m.ID, Model: m.Model, Usage: m.Usage}
		for _, b := range m.Content.Blocks {
			if b.Type == transcript.BlockToolUse {
				tm.Content.Blocks = append(tm.Content.Blocks, transcript.Block{Type: b.Type, ID: b.ID, Name: b.Name})
			}
		}
		t.Message = tm
	}
	return t
}

func hasToolResult(r *transcript.Record) bool {
	if r.Message == nil {
		return false
	}
	for _, b := range r.Message.Content.Blocks {
		if b.Type == transcript.BlockToolResult {
			return true
		}
	}
	return false
}

// injected is the text a record gives the model besides the conversation:
// an attachment's rendered text, a client-written message, a system line.
func injected(r *transcript.Record) string {
	if s := breakdown.Rendered(r); s != "" {
		return s
	}
	if r.Message != nil {
		return r.Message.Content.Text()
	}
	return r.Content
}

// firstWith is the paragraph of s that holds mark.
func firstWith(s, mark string) string {
	i := strings.Index(s, mark)
	if i < 0 {
		return s
	}
	s = s[i:]
	if j := strings.Index(s, "\n\n"); j > 0 {
		s = s[:j]
	}
	return s
}

// shown is text from a transcript as a page shows it: secrets redacted,
// as a terminal would show it.
func shown(s string) string { return text.Printable(redact.String(s)) }

func (sc *scan) compactions() int {
	if dialect(sc.agent) != nil {
		return len(sc.tl.Compactions)
	}
	n := 0
	for i := range sc.recs {
		if sc.recs[i].IsCompactBoundary() {
			n++
		}
	}
	return n
}

func (sc *scan) responses() int {
	if dialect(sc.agent) != nil {
		return len(sc.tl.Points)
	}
	seen, n := "", 0
	for i := range sc.recs {
		if m := sc.recs[i].Message; m != nil && (m.ID != seen || m.ID == "") {
			seen = m.ID
			n++
		}
	}
	return n
}

// dialect reads the usage of a client whose transcript gives nothing else
// a session page shows: Codex's rollout, Gemini CLI's chat. nil for
// Claude Code's transcript, read here record by record.
func dialect(agent string) transcript.Dialect {
	switch agent {
	case ctxkeep.AgentCodex:
		return codex.Usage{}
	case ctxkeep.AgentGemini:
		return gemini.Usage{}
	}
	return nil
}

// takeUsage reads a line in the client's dialect (a Codex rollout's, a
// Gemini CLI chat's): a point for every response's usage, a mark for
// every compaction (Gemini CLI's compression).
func (sc *scan) takeUsage(d transcript.Dialect, line []byte) {
	if sc.agent == ctxkeep.AgentGemini && bytes.Contains(line, warnMark) {
		sc.takeChatWarnings(line)
	}
	if !d.MayMatter(line) {
		return
	}
	before := sc.usage
	if d.Take(&sc.usage, line) {
		sc.tl.Compactions = append(sc.tl.Compactions, breakdown.CompactionMark{After: len(sc.tl.Points), Time: sc.usage.Timestamp,
			Trigger: compactionTrigger(sc.agent), PreTokens: before.Tokens})
		return
	}
	if sc.usage.Window > 0 {
		sc.window = sc.usage.Window
	}
	if sc.usage.Tokens > 0 && (sc.usage.Tokens != before.Tokens || !sc.usage.Timestamp.Equal(before.Timestamp)) {
		sc.tl.Points = append(sc.tl.Points, breakdown.Point{N: len(sc.tl.Points) + 1, Time: sc.usage.Timestamp,
			Tokens: sc.usage.Tokens, Cycle: len(sc.tl.Compactions)})
		sc.peak = max(sc.peak, sc.usage.Tokens)
	}
}

// takeChatWarnings reads the warnings ctxkeep gave in a Gemini CLI chat
// line: its AfterTool hook's context, which the CLI appends to the tool's
// result in <hook_context>. A message is written again as it grows: a
// warning read before is not taken twice.
func (sc *scan) takeChatWarnings(line []byte) {
	for _, res := range gemini.CallResults(line) {
		if !strings.Contains(res, string(warnMark)) {
			continue
		}
		txt := shown(strings.TrimSuffix(firstWith(res, string(warnMark)), "</hook_context>"))
		if !slices.ContainsFunc(sc.warnings, func(w warning) bool { return w.Text == txt }) {
			sc.warnings = append(sc.warnings, warning{At: sc.responses(), Text: txt})
		}
	}
}

// compactionTrigger names a compaction read in a client's dialect: Codex
// compacts automatically; Gemini CLI's chat does not say whether a
// compression was automatic or /compress.
func compactionTrigger(agent string) string {
	if agent == ctxkeep.AgentGemini {
		return "compression"
	}
	return "auto"
}

// timeline is the session's context over time with swaps placed.
func (sc *scan) timeline(swaps []breakdown.Swap) breakdown.Timeline {
	if dialect(sc.agent) != nil {
		return sc.tl
	}
	return breakdown.BuildTimeline(sc.recs, swaps)
}

// resultText is the text of a tool result as the transcript holds it: the
// view the model saw, for an output ctxkeep replaced (and the client
// applied). ok is false when the transcript has no such result.
func (sc *scan) resultText(toolUseID string, maxLine int) (string, bool) {
	off, found := sc.results[toolUseID]
	if !found {
		return "", false
	}
	f, _, err := fsx.OpenRegular(sc.path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return "", false
	}
	lines := transcript.NewLineReader(f, transcript.ReadLimits{Line: maxLine}, false)
	line, _, err := lines.Next()
	if err != nil || line == nil {
		return "", false
	}
	rec, err := transcript.ParseLine(line[:len(line)-1])
	if (err != nil && rec.Type == "") || rec.Message == nil {
		return "", false
	}
	for _, b := range rec.Message.Content.Blocks {
		if b.Type == transcript.BlockToolResult && b.ToolUseID == toolUseID {
			return b.Content.Text(), true
		}
	}
	return "", false
}
