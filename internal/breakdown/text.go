package breakdown

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// WriteText prints the report for a terminal: the gauge, the breakdown,
// stale output, the prediction and the timeline chart, width columns wide.
func WriteText(w io.Writer, r *Report, width int) {
	l := r.Limits
	size := watch.Thousands(r.Tokens)
	if r.Estimated {
		size = "~" + size + " (estimate: no usage recorded yet; offline tokenizer × 4/3)"
	}
	fmt.Fprintf(w, "session %s (%s)\n", r.Session, orUnknown(r.Model))
	fmt.Fprintf(w, "context  %s of %s tokens (%.0f%% of the window)\n", size, watch.Thousands(l.Window), l.OfWindow(r.Tokens))
	if l.Inferred {
		fmt.Fprintf(w, "         window inferred: the context went past the configured %s without compacting, so the model has a larger one (set window.MODEL in the config)\n",
			watch.Thousands(l.Configured))
	}
	if l.AutoCompactOn {
		fmt.Fprintf(w, "         auto-compaction at %s (%s away), client warning from %s, blocking at %s\n",
			watch.Thousands(l.AutoCompact), watch.Thousands(max(0, l.ToCompaction(r.Tokens))), watch.Thousands(l.Warning), watch.Thousands(l.Blocking))
	} else {
		fmt.Fprintf(w, "         auto-compaction off; the client stops at %s\n", watch.Thousands(l.Blocking))
	}
	writePrediction(w, r.Prediction)
	fmt.Fprintln(w)
	writeCategories(w, r)
	fmt.Fprintln(w)
	s := r.Stale
	fmt.Fprintf(w, "stale tool output: %s tokens, %.0f%% of the tool results (%d results: %d superseded by the same call later, %d reads of files changed since)\n",
		watch.Thousands(s.Tokens), s.Share(), s.Items, s.Reruns, s.Outdated)
	fmt.Fprintf(w, "duplicate file reads: %d, %s tokens\n", s.DupReads, watch.Thousands(s.DupTokens))
	if k := r.SwappedOut; k.Entries+k.NotApplied+k.Unchecked > 0 {
		fmt.Fprintf(w, "ctxkeep kept %d output(s) out of this session's context, as the transcript shows: ~%s tokens", k.Entries, watch.Thousands(k.Tokens))
		if k.Unchecked > 0 {
			fmt.Fprintf(w, "; %d more replaced, not checked yet (~%s tokens if the client took them)", k.Unchecked, watch.Thousands(k.UncheckedTokens))
		}
		if k.NotApplied > 0 {
			fmt.Fprintf(w, "; %d replacement(s) not applied: the model saw those outputs whole (`ctxkeep doctor`)", k.NotApplied)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, Chart(r.Timeline, l, max(width-8, 20), 10))
	if r.Problems > 0 {
		fmt.Fprintf(w, "%d transcript line(s) could not be read and were skipped\n", r.Problems)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "model unknown"
	}
	return s
}

func writePrediction(w io.Writer, p Prediction) {
	switch {
	case p.TokensLeft <= 0:
		fmt.Fprintln(w, "         the next request compacts")
	case p.Responses > 0:
		fmt.Fprintf(w, "         about %d more response(s) to auto-compaction at the recent rate (+%s per response over the last %d)",
			p.Responses, watch.Short(int64(p.PerResponse)), p.Over)
		if p.Prompts > 0 {
			fmt.Fprintf(w, ", or %d prompt(s) at +%s per prompt", p.Prompts, watch.Short(int64(p.PerPrompt)))
		}
		fmt.Fprintln(w)
	case p.Over > 0:
		fmt.Fprintf(w, "         not growing over the last %d response(s)\n", p.Over)
	}
}

// writeCategories prints one line per category, the tools of tool
// requests and results folded into one line each with the largest tools
// listed.
func writeCategories(w io.Writer, r *Report) {
	fmt.Fprintf(w, "what the model is sent now (split with an offline tokenizer; %s tokens counted of %s):\n",
		watch.Thousands(r.Counted), watch.Thousands(r.Tokens))
	fmt.Fprintf(w, "  %-26s %9s %5s %6s  %s\n", "CATEGORY", "TOKENS", "SHARE", "ITEMS", "LARGEST")
	for _, g := range Grouped(r.Categories) {
		share := 0.0
		if r.Counted > 0 {
			share = 100 * float64(g.Tokens) / float64(r.Counted)
		}
		fmt.Fprintf(w, "  %-26s %9s %4.0f%% %6d  %s\n", Label(g.Name), watch.Thousands(g.Tokens), share, g.Items, g.detail())
	}
	if rest := r.Tokens - r.Counted; !r.Estimated && rest > 0 {
		fmt.Fprintf(w, "  %-26s %9s\n", "not in the transcript", watch.Thousands(rest))
		what := "system prompt, tool definitions"
		if r.Continues {
			what = "system prompt, tool definitions, and the earlier conversation this transcript continues: it starts in the middle of one"
		}
		fmt.Fprintf(w, "    %-24s %9s  (%s)\n", "before the first response", watch.Thousands(r.Before), what)
		fmt.Fprintf(w, "    %-24s %9s  (the tokenizer's error, and what the client sends that the transcript does not record)\n", "since", watch.Thousands(rest-r.Before))
	}
}

// Group is a category with its tools folded in.
type Group struct {
	Name   string     `json:"name"`
	Items  int        `json:"items"`
	Tokens int64      `json:"tokens"`
	Tools  []Category `json:"tools,omitempty"` // largest first
}

func (g Group) detail() string {
	var parts []string
	for i, t := range g.Tools {
		if i == 4 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", t.Tool, watch.Short(t.Tokens)))
	}
	return strings.Join(parts, ", ")
}

// Grouped folds the per-tool categories into one group per category,
// largest first.
func Grouped(cats []Category) []Group {
	var out []Group
	index := map[string]int{}
	for _, c := range cats { // already largest first
		i, ok := index[c.Name]
		if !ok {
			i = len(out)
			index[c.Name] = i
			out = append(out, Group{Name: c.Name})
		}
		g := &out[i]
		g.Items += c.Items
		g.Tokens += c.Tokens
		if c.Tool != "" {
			g.Tools = append(g.Tools, c)
		}
	}
	sortGroups(out)
	return out
}

func sortGroups(gs []Group) {
	for i := 1; i < len(gs); i++ {
		for j := i; j > 0 && gs[j].Tokens > gs[j-1].Tokens; j-- {
			gs[j], gs[j-1] = gs[j-1], gs[j]
		}
	}
}

// eighths are the block characters for a column's top cell.
var eighths = []rune(" ▁▂▃▄▅▆▇█")

// Chart draws the timeline as columns of block characters: the context
// after each response (several responses share a column when there are
// more than width), the auto-compaction threshold as a dotted line, and
// below the axis ▲ at compactions and ◆ where ctxkeep swapped an output.
func Chart(tl Timeline, l watch.Limits, width, height int) string {
	pts := tl.Points
	if len(pts) == 0 {
		return "no responses yet: nothing to chart\n"
	}
	cols := min(width, len(pts))
	col := func(n int) int { return (n - 1) * cols / len(pts) } // response number → column
	top := make([]int64, cols)
	for _, p := range pts {
		top[col(p.N)] = max(top[col(p.N)], p.Tokens)
	}
	ymax := l.AutoCompact
	for _, t := range top {
		ymax = max(ymax, t)
	}
	ymax = ymax + ymax/20
	thresholdRow := int(float64(l.AutoCompact) / float64(ymax) * float64(height)) // rows from the bottom
	var b strings.Builder
	fmt.Fprintf(&b, "context after each of %d responses, %d compaction(s)\n", len(pts), len(tl.Compactions))
	for row := height - 1; row >= 0; row-- {
		label := ""
		switch row {
		case thresholdRow:
			label = watch.Short(l.AutoCompact)
		case height / 2:
			label = watch.Short(ymax * int64(height/2+1) / int64(height))
		}
		fmt.Fprintf(&b, "%6s ┤", label)
		for c := range cols {
			eighth := int(float64(top[c]) / float64(ymax) * float64(height*8))
			switch cell := eighth - row*8; {
			case cell >= 8:
				b.WriteRune('█')
			case cell > 0:
				b.WriteRune(eighths[cell])
			case row == thresholdRow && l.AutoCompactOn:
				b.WriteRune('┄')
			default:
				b.WriteRune(' ')
			}
		}
		if row == thresholdRow && l.AutoCompactOn {
			b.WriteString(" auto-compact")
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%6s ┼%s\n", "0", strings.Repeat("─", cols))
	marks := []rune(strings.Repeat(" ", cols))
	for _, s := range tl.Swaps {
		if s.KeptOut() {
			marks[col(s.At)] = '◆'
		}
	}
	for _, c := range tl.Compactions {
		marks[min(col(c.After+1), cols-1)] = '▲'
	}
	fmt.Fprintf(&b, "%6s  %s\n", "", strings.TrimRight(string(marks), " "))
	b.WriteString("        ▲ compaction   ◆ output swapped out by ctxkeep\n")
	return b.String()
}
