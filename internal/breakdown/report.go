package breakdown

import (
	"errors"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// Report is everything `ctxkeep context` shows about one session.
type Report struct {
	Session    string `json:"session_id"`
	Transcript string `json:"transcript"`
	Model      string `json:"model"`
	// Tokens is the context now: exact (the client's usage) unless
	// Estimated, when no response has recorded any usage yet and it is the
	// tokenizer count with the client's 4/3 safety margin.
	Tokens    int64        `json:"tokens"`
	Estimated bool         `json:"estimated"`
	Usage     Usage        `json:"usage"`
	Limits    watch.Limits `json:"limits"`
	// Categories split what the model is sent now (the Live view: since
	// the last compaction, with the turns it preserved) by the tokenizer;
	// Counted is their sum. The rest of Tokens is the system prompt, the
	// tool definitions and the tokenizer's error.
	Categories []Category `json:"categories"`
	Counted    int64      `json:"counted_tokens"`
	// Before is what the context held at the first response of the live
	// view that the transcript does not show before that response: the
	// system prompt and the tool definitions, and, when the transcript
	// continues a conversation recorded elsewhere (Continues), that
	// conversation. The rest of Tokens - Counted is the tokenizer's error
	// and what the client sends that the transcript does not record.
	Before     int64        `json:"before_first_response_tokens"`
	Continues  bool         `json:"continues_another_transcript,omitempty"`
	Stale      Stale        `json:"stale"`
	Prediction Prediction   `json:"prediction"`
	Timeline   Timeline     `json:"timeline"`
	SwappedOut SwappedTotal `json:"kept"`
	Problems   int          `json:"bad_lines,omitempty"` // transcript lines that could not be read
	Generated  time.Time    `json:"generated"`
	// Note is said at the head of the HTML page: what the reader must know
	// first (the CLI's: the session is another project's). JSON documents
	// carry their own.
	Note string `json:"-"`
}

// Usage is the exact context usage the transcript records (§8.3).
type Usage struct {
	Tokens      int64     `json:"tokens"`       // input + cache creation + cache reads + output
	InputTokens int64     `json:"input_tokens"` // the same without output
	MessageID   string    `json:"message_id,omitempty"`
	Time        time.Time `json:"time,omitzero"`
	Compacted   bool      `json:"compacted"` // no response since the last compaction
}

func usageOf(u ctxkeep.Usage) Usage {
	return Usage{Tokens: u.Tokens, InputTokens: u.InputTokens, MessageID: u.MessageID, Time: u.Timestamp, Compacted: u.Compacted}
}

// SwappedTotal is what swap kept out of the whole session, as the
// transcript shows it: Entries and Tokens count the replacements applied
// and the outputs ctxkeep printed; the replacements the client did not
// apply, and those not checked yet, are counted apart.
type SwappedTotal struct {
	Entries         int   `json:"entries"`
	Tokens          int64 `json:"tokens"`
	NotApplied      int   `json:"not_applied"`
	Unchecked       int   `json:"unchecked"`
	UncheckedTokens int64 `json:"unchecked_tokens"` // kept out if the client took them
}

// Input is what Build needs.
type Input struct {
	Session    string
	Transcript string
	Records    []transcript.Record // the whole main transcript, in file order
	Problems   int
	Swaps      []Swap // the session's entries in the index
	// Limits gives the thresholds for the session's model; peak is the
	// largest context size the transcript records, which tells a session
	// of a larger window than configured (watch.LimitsFor).
	Limits  func(model string, peak int64) watch.Limits
	Counter Counter
	Now     time.Time
}

// ErrEmpty is returned for a transcript without a single conversation
// record.
var ErrEmpty = errors.New("the transcript has no conversation yet")

// Build analyses a session.
func Build(in Input) (*Report, error) {
	hist := transcript.History(in.Records)
	if len(hist) == 0 {
		return nil, ErrEmpty
	}
	live, _ := transcript.Live(in.Records) // without its preserved turns if they are missing: still the best view
	cats, resultTokens := Categorize(live, in.Counter)
	r := &Report{
		Session: in.Session, Transcript: in.Transcript, Problems: in.Problems, Generated: in.Now,
		Categories: cats,
	}
	for _, c := range cats {
		r.Counted += c.Tokens
	}
	u := transcript.CurrentContext(in.Records)
	r.Usage, r.Model, r.Tokens = usageOf(u), u.Model, u.Tokens
	if !u.Known() {
		r.Tokens, r.Estimated = WithMargin(r.Counted), true
	}
	r.Stale = findStale(liveCalls(live), resultTokens)
	r.Timeline = BuildTimeline(in.Records, in.Swaps)
	peak := u.Tokens
	for _, p := range r.Timeline.Points {
		peak = max(peak, p.Tokens)
	}
	r.Before = beforeFirstResponse(live, cycleOnly(r.Timeline.Points), in.Counter, r.Tokens-r.Counted)
	r.Continues = continuesElsewhere(in.Records)
	r.Limits = in.Limits(r.Model, peak)
	r.Prediction = Predict(cycleOnly(r.Timeline.Points), turnEnds(live), r.Tokens, r.Limits.AutoCompact)
	if !r.Limits.AutoCompactOn {
		r.Prediction = Predict(cycleOnly(r.Timeline.Points), turnEnds(live), r.Tokens, r.Limits.Effective)
	}
	for _, s := range r.Timeline.Swaps {
		switch {
		case s.KeptOut():
			r.SwappedOut.Entries++
			r.SwappedOut.Tokens += s.Tokens
		case s.Status == NotApplied:
			r.SwappedOut.NotApplied++
		default:
			r.SwappedOut.Unchecked++
			r.SwappedOut.UncheckedTokens += s.Tokens
		}
	}
	return r, nil
}

// beforeFirstResponse is the context at the first response of the live
// view less what the tokenizer counts of the live records before it: what
// the model was sent that the transcript does not show, measured where
// the transcript has had the least time to add its own error. It is at
// most rest (the whole of what is not counted), and 0 without a response.
func beforeFirstResponse(live []transcript.Record, cycle []Point, c Counter, rest int64) int64 {
	if len(cycle) == 0 || rest <= 0 || c == nil {
		return 0
	}
	first := cycle[0]
	i := 0
	for i < len(live) && live[i].Line < first.Line {
		i++
	}
	cats, _ := Categorize(live[:i], c)
	var counted int64
	for _, cat := range cats {
		counted += cat.Tokens
	}
	return min(max(first.Tokens-counted, 0), rest)
}

// continuesElsewhere reports whether the transcript starts in the middle
// of a conversation: its first record with a uuid has a parent that no
// record of it has (an older client's continued session, whose earlier
// part is another transcript).
func continuesElsewhere(records []transcript.Record) bool {
	uuids := make(map[string]bool, len(records))
	for i := range records {
		uuids[records[i].UUID] = true
	}
	for i := range records {
		if r := &records[i]; r.UUID != "" && (r.Type == transcript.TypeUser || r.Type == transcript.TypeAssistant) {
			return r.ParentUUID != "" && !uuids[r.ParentUUID]
		}
	}
	return false
}

// cycleOnly is the points after the last compaction: a rate across a
// compaction means nothing.
func cycleOnly(points []Point) []Point {
	if len(points) == 0 {
		return nil
	}
	last := points[len(points)-1].Cycle
	i := len(points)
	for i > 0 && points[i-1].Cycle == last {
		i--
	}
	return points[i:]
}

// liveCalls lists the tool calls of the live view that have a result.
func liveCalls(live []transcript.Record) []call {
	calls, _ := transcript.ToolCalls(live)
	var out []call
	for _, c := range calls {
		if c.Result != nil {
			out = append(out, call{id: c.ID, name: c.Name, input: c.Input})
		}
	}
	return out
}

// turnEnds is the context at the end of each turn of the live view that
// has a response: the usage of its last one.
func turnEnds(live []transcript.Record) []int64 {
	var out []int64
	for _, t := range transcript.Turns(live) {
		if t.Prompt == nil {
			continue // the part before the first prompt (a compaction's tail)
		}
		var u ctxkeep.Usage
		for _, r := range t.Records {
			transcript.UpdateUsage(&u, r)
		}
		if u.MessageID != "" {
			out = append(out, u.Tokens)
		}
	}
	return out
}
