package breakdown

import (
	"math"
	"time"

	"github.com/ctxkeep/ctxkeep"

	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Point is the context size after one main-thread response, as the client
// counts it (input + cache creation + cache reads + output).
type Point struct {
	N      int       `json:"n"` // 1-based response number in the session
	Line   int       `json:"line"`
	Time   time.Time `json:"time"`
	Tokens int64     `json:"tokens"`
	Cycle  int       `json:"cycle"` // compactions before it
	// Saved is what swap had kept out of this compaction cycle's context
	// by then, in tokens: the context would have been Tokens + Saved.
	Saved int64 `json:"saved,omitempty"`
}

// CompactionMark is a compaction on the timeline.
type CompactionMark struct {
	After      int       `json:"after"` // responses before it
	Line       int       `json:"line"`
	Time       time.Time `json:"time"`
	Trigger    string    `json:"trigger"`
	PreTokens  int64     `json:"pre_tokens"`
	PostTokens int64     `json:"post_tokens"`
}

// Swap is an output ctxkeep stored (an index entry), and whether the
// transcript shows it was kept out of the context (internal/proof).
type Swap struct {
	ID        string `json:"id"`
	ToolUseID string `json:"tool_use_id"`
	Tool      string `json:"tool"`
	Tokens    int64  `json:"tokens"` // (original − view) characters / 4: kept out, when it was
	Status    string `json:"status"` // Applied, Printed, NotApplied or Unchecked
}

// What the transcript shows of a swap: the client applied the
// replacement, or ctxkeep printed the output itself (the wrapper) — both
// kept it out of the context —, the client did not apply it (the model saw
// the output), or it is not checked yet.
const (
	Applied    = "applied"
	Printed    = "printed"
	NotApplied = "not applied"
	Unchecked  = "unchecked"
)

// KeptOut reports whether the transcript shows the output was kept out of
// the context.
func (s Swap) KeptOut() bool { return s.Status == Applied || s.Status == Printed }

// SwapOf is an entry as the timeline places it: what it kept out, and
// what the transcript shows of it (its verdict).
func SwapOf(e ctxkeep.Entry) Swap {
	return Swap{ID: e.ID, ToolUseID: e.ToolUseID, Tool: e.Tool, Tokens: int64(e.Chars-e.ViewChars) / 4, Status: StatusOf(e)}
}

// StatusOf is what the transcript shows of an entry: Printed (no hook
// reply replaced it: ctxkeep printed it), Unchecked, Applied or
// NotApplied.
func StatusOf(e ctxkeep.Entry) string {
	switch {
	case e.Replacement == "":
		return Printed
	case e.Applied == nil:
		return Unchecked
	case *e.Applied:
		return Applied
	}
	return NotApplied
}

// SwapMark is a swap placed on the timeline: at the response that made
// the call.
type SwapMark struct {
	Swap
	At int `json:"at"` // response number
}

// Timeline is the context size across the whole session.
type Timeline struct {
	Points      []Point          `json:"points"`
	Compactions []CompactionMark `json:"compactions"`
	Swaps       []SwapMark       `json:"swaps"`
}

// BuildTimeline reads every main-thread response of recs (a whole
// transcript, in file order) and places the compactions and swaps. A
// response written over several lines is one point, with the usage of its
// last line.
func BuildTimeline(recs []transcript.Record, swaps []Swap) Timeline {
	var tl Timeline
	at := map[string]int{}   // message id → index in Points
	uses := map[string]int{} // tool_use id → response number
	cycle := 0
	for i := range recs {
		r := &recs[i]
		if !r.MainThread() {
			continue
		}
		if r.IsCompactBoundary() {
			m := CompactionMark{After: len(tl.Points), Line: r.Line, Time: r.Timestamp}
			if md := r.CompactMetadata; md != nil {
				m.Trigger, m.PreTokens, m.PostTokens = md.Trigger, md.PreTokens, md.PostTokens
			}
			tl.Compactions = append(tl.Compactions, m)
			cycle++
			continue
		}
		if r.Type != transcript.TypeAssistant || r.Message == nil || r.Message.Model == transcript.SyntheticModel {
			continue
		}
		m := r.Message
		j, seen := at[m.ID]
		if !seen || m.ID == "" {
			j = len(tl.Points)
			tl.Points = append(tl.Points, Point{N: j + 1, Cycle: cycle})
			at[m.ID] = j
		}
		p := &tl.Points[j]
		p.Line, p.Time, p.Tokens = r.Line, r.Timestamp, m.Usage.Context()+m.Usage.OutputTokens
		for _, b := range m.Content.Blocks {
			if b.Type == transcript.BlockToolUse {
				uses[b.ID] = p.N
			}
		}
	}
	tl.placeSwaps(swaps, uses)
	return tl
}

// placeSwaps marks each swap at the response that made its call, and adds
// up what swap saved in each compaction cycle: the swaps the transcript
// shows were kept out.
func (tl *Timeline) placeSwaps(swaps []Swap, uses map[string]int) {
	saved := make([]int64, len(tl.Points)+1) // by response number
	for _, s := range swaps {
		n, ok := uses[s.ToolUseID]
		if !ok {
			continue // a subagent's call, or another session's
		}
		tl.Swaps = append(tl.Swaps, SwapMark{Swap: s, At: n})
		if s.KeptOut() {
			saved[n] += s.Tokens
		}
	}
	var run int64
	for i := range tl.Points {
		p := &tl.Points[i]
		if i > 0 && tl.Points[i-1].Cycle != p.Cycle {
			run = 0 // what was kept out before a compaction would have been compacted too
		}
		run += saved[p.N]
		p.Saved = run
	}
}

// Prediction is when the next auto-compaction comes at the recent rate.
type Prediction struct {
	TokensLeft int64 `json:"tokens_left"`
	// PerResponse is the average growth per response over the last Over
	// responses of this compaction cycle; Responses is how many more
	// responses reach the threshold at that rate, -1 when the context is
	// not growing or there are too few responses.
	PerResponse float64 `json:"growth_per_response"`
	Over        int     `json:"over_responses"`
	Responses   int     `json:"responses_left"`
	// PerPrompt and Prompts are the same per user prompt (turn), over the
	// last OverPrompts turns; -1 when unknown.
	PerPrompt   float64 `json:"growth_per_prompt"`
	OverPrompts int     `json:"over_prompts"`
	Prompts     int     `json:"prompts_left"`
}

// rateWindow is how many recent responses the growth rate is taken over.
const rateWindow = 10

// Predict works out the growth rate over the current cycle's last
// responses, and over its last turns (turnEnds: the context at the end of
// each turn, in order), and how many more reach the threshold.
func Predict(points []Point, turnEnds []int64, now, threshold int64) Prediction {
	p := Prediction{TokensLeft: threshold - now, Responses: -1, Prompts: -1}
	if len(points) > 0 {
		last := points[len(points)-1].Cycle
		start := len(points) - 1
		for start > 0 && points[start-1].Cycle == last && len(points)-start <= rateWindow {
			start--
		}
		cyc := points[start:]
		if n := len(cyc) - 1; n > 0 {
			p.Over = n
			p.PerResponse = float64(cyc[n].Tokens-cyc[0].Tokens) / float64(n)
			p.Responses = left(p.TokensLeft, p.PerResponse)
		}
	}
	if n := min(len(turnEnds)-1, 3); n > 0 {
		p.OverPrompts = n
		p.PerPrompt = float64(turnEnds[len(turnEnds)-1]-turnEnds[len(turnEnds)-1-n]) / float64(n)
		p.Prompts = left(p.TokensLeft, p.PerPrompt)
	}
	return p
}

func left(tokens int64, rate float64) int {
	switch {
	case tokens <= 0:
		return 0
	case rate <= 0:
		return -1
	}
	return int(math.Ceil(float64(tokens) / rate))
}
