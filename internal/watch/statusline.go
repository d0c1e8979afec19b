package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// StatusInput is the part of the client's statusLine stdin ctxkeep reads
// (claude-code-hooks.md §3). Every field is optional: older clients send
// less, and the transcript is the source of the figures anyway.
type StatusInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	ContextWindow *ContextWindow `json:"context_window"`
}

// ContextWindow is the client's own view of the context.
type ContextWindow struct {
	Size         int64             `json:"context_window_size"`
	CurrentUsage *transcript.Usage `json:"current_usage"` // all zeros after a compaction
}

// ParseStatusInput decodes the statusLine stdin. Unknown fields, and
// known ones of an unexpected type, are ignored: a statusline must draw
// something whatever the client sends.
func ParseStatusInput(data []byte) (StatusInput, error) {
	var in StatusInput
	if err := json.Unmarshal(data, &in); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return StatusInput{}, fmt.Errorf("statusline input: %w", err)
		}
	}
	return in, nil
}

// Gauge is what the statusline shows.
type Gauge struct {
	Tokens     int64
	Known      bool // Tokens is known (recorded, or estimated)
	Estimated  bool // Tokens is a tokenizer estimate: no usage recorded yet
	Compacted  bool // a compaction happened and no response followed yet
	Limits     Limits
	Levels     []int // warning levels, to colour the gauge
	SwappedOut *SwappedOut
}

// ANSI colours, used when the gauge is drawn in colour (the client renders
// them in its statusline).
const (
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	red    = "\x1b[31m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

// Line draws the gauge on one line, e.g.
//
//	▰▰▰▰▰▰▱▱▱▱ 67% 134.5k/200k · auto-compact in 32.5k · kept out ~40k (12)
//
// The bar and the percentage are of the window, as the client shows them;
// the distance is to the auto-compaction threshold.
func (g Gauge) Line(color bool) string {
	paint := func(c, s string) string {
		if !color {
			return s
		}
		return c + s + reset
	}
	l := g.Limits
	var parts []string
	switch {
	case !g.Known:
		parts = append(parts, "ctx: no usage yet")
	default:
		c := g.color()
		size := Short(g.Tokens)
		if g.Estimated {
			size = "~" + size
		}
		gauge := fmt.Sprintf("%s %.0f%% %s/%s", bar(l.OfWindow(g.Tokens), 10), l.OfWindow(g.Tokens), size, Short(l.Window))
		if g.Estimated {
			gauge += " (estimate)"
		}
		if l.Inferred {
			gauge += " (window inferred)"
		}
		parts = append(parts, paint(c, gauge))
		parts = append(parts, g.distance())
	}
	if g.SwappedOut.Any() {
		parts = append(parts, paint(dim, g.SwappedOut.Short()))
	}
	return strings.Join(parts, " · ")
}

func (g Gauge) distance() string {
	l := g.Limits
	switch {
	case g.Compacted:
		return "just compacted"
	case !l.AutoCompactOn:
		return "auto-compact off, stops at " + Short(l.Blocking)
	case l.ToCompaction(g.Tokens) <= 0:
		return "compacts on the next request"
	}
	return "auto-compact in " + Short(l.ToCompaction(g.Tokens))
}

// color is green below the first warning level, yellow from it, red from
// the last one.
func (g Gauge) color() string {
	pct := g.Limits.OfThreshold(g.Tokens)
	switch n := len(g.Levels); {
	case n > 0 && pct >= float64(g.Levels[n-1]):
		return red
	case n > 0 && pct >= float64(g.Levels[0]):
		return yellow
	}
	return green
}

// bar draws pct (0–100) in cells of ▰ and ▱.
func bar(pct float64, cells int) string {
	full := int(pct/100*float64(cells) + 0.5)
	full = min(max(full, 0), cells)
	return strings.Repeat("▰", full) + strings.Repeat("▱", cells-full)
}
