package breakdown

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"text/template"

	"github.com/ctxkeep/ctxkeep/internal/watch"
)

//go:embed report.html.tmpl
var pageTemplate string

// page is parsed on first use: parsing at package initialisation would
// cost every process of the binary, hook calls included, 0.7 ms. It is a
// text/template, not an html/template, for the same reason (html/template
// costs 0.2 ms of initialisation per process): every string that comes
// from a transcript goes through the html function in the template, and
// the chart's data is JSON, which escapes <, > and &.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"thousands": watch.Thousands,
		"short":     watch.Short,
		"label":     Label,
		"pct":       func(f float64) string { return fmt.Sprintf("%.0f%%", f) },
		"add":       func(d, v float64) float64 { return v + d },
		"sub":       func(d, v float64) float64 { return v - d },
		"rest":      func(r *Report) int64 { return r.Tokens - r.Counted - r.Before },
	}).Parse(pageTemplate))
})

// WriteHTML writes the report as one self-contained HTML page: inline CSS,
// an inline SVG chart and a few lines of script for the chart's readout.
// It loads nothing from anywhere.
func WriteHTML(w io.Writer, r *Report) error {
	data, err := newPageData(r)
	if err != nil {
		return err
	}
	return page().Execute(w, data)
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH         = 1000.0, 340.0
	padL, padR, padT, padB = 64.0, 24.0, 20.0, 44.0
)

type pageData struct {
	R          *Report
	ShortID    string
	Gauge      gauge
	Groups     []groupView
	Chart      chartView
	Points     string // the points as JSON, for the readout
	HasSaved   bool
	StaleWidth float64
	Rate       int64 // growth per response, tokens
}

type gauge struct {
	Used, Warn, Compact, Block float64 // percent of the window
	// How each mark's label sits: "" centred on the mark, "end" ending at
	// it (near the right edge), "start" starting at it (near the left);
	// two labels under the gauge that would overlap take two rows
	// (TwoRows: the blocking one goes under the warning's). On a 1M
	// window the three marks are within 3% of each other.
	WarnAlign, CompactAlign, BlockAlign string
	TwoRows                             bool
}

// labelAlign is how a label at x percent of the gauge sits inside it.
func labelAlign(x float64) string {
	switch {
	case x > 85:
		return "end"
	case x < 15:
		return "start"
	}
	return ""
}

func newGauge(used, warn, compact, block float64) gauge {
	g := gauge{Used: used, Warn: warn, Compact: compact, Block: block,
		WarnAlign: labelAlign(warn), CompactAlign: labelAlign(compact), BlockAlign: labelAlign(block)}
	// The labels under the gauge ("client warning 947k", "blocked 977k")
	// are about 11% and 8% of its width on a page of usual width.
	g.TwoRows = block-warn < 10
	if g.TwoRows {
		g.WarnAlign, g.BlockAlign = "end", "end"
	}
	return g
}

type groupView struct {
	Group
	Share, Offset float64 // percent of the counted tokens
	Color         string
	Detail        string
}

type chartView struct {
	W, H, Left, Right, Top, Bottom float64
	Area, Line, Saved              string
	Threshold, Warning             float64 // y
	YTicks, XTicks                 []tick
	Compactions                    []compactionView
	Swaps                          []swapView
}

type tick struct {
	At    float64
	Label string
}

type compactionView struct {
	X     float64
	Label string
}

type swapView struct {
	X, Y  float64
	Title string
}

// palette colours the categories, in a fixed order so that a category
// keeps its colour from one report to the next.
var palette = map[string]string{
	ToolResult: "#2f6fdf", ToolUse: "#7aa7f0", Assistant: "#1f9e89", Thinking: "#6cc5b0",
	User: "#e08a1e", Injected: "#b05fc0", Image: "#d4a017", Summary: "#8c8c8c",
}

func newPageData(r *Report) (*pageData, error) {
	d := &pageData{R: r, ShortID: r.Session} // whole: the title names the session, uncut
	l := r.Limits
	d.Gauge = newGauge(min(l.OfWindow(r.Tokens), 100), l.OfWindow(l.Warning), l.OfWindow(l.AutoCompact), l.OfWindow(l.Blocking))
	var offset float64
	for _, g := range Grouped(r.Categories) {
		share := 0.0
		if r.Counted > 0 {
			share = 100 * float64(g.Tokens) / float64(r.Counted)
		}
		d.Groups = append(d.Groups, groupView{Group: g, Share: share, Offset: offset, Color: palette[g.Name], Detail: g.detail()})
		offset += share
	}
	d.StaleWidth = r.Stale.Share()
	d.Rate = int64(r.Prediction.PerResponse)
	d.Chart = newChart(r.Timeline, l)
	for _, p := range r.Timeline.Points {
		if p.Saved > 0 {
			d.HasSaved = true
		}
	}
	pts, err := json.Marshal(readout(r.Timeline))
	if err != nil {
		return nil, err
	}
	d.Points = string(pts)
	return d, nil
}

// ChartView is the geometry of the context chart the HTML report draws:
// the SVG paths of the context and of what it would have been without
// swap, the thresholds, the ticks, the compactions and the swaps kept out.
// The web UI (internal/ui) draws the same chart.
type ChartView = chartView

// NewChart lays out the chart of tl under the thresholds l.
func NewChart(tl Timeline, l watch.Limits) ChartView { return newChart(tl, l) }

// Readout is what the chart's readout shows per response: x, the tokens
// and a caption.
func Readout(tl Timeline) [][3]any { return readout(tl) }

// readout is what the chart's script shows on hover: x, y and a caption
// per response.
func readout(tl Timeline) [][3]any {
	out := make([][3]any, 0, len(tl.Points))
	x := xScale(len(tl.Points))
	for _, p := range tl.Points {
		caption := fmt.Sprintf("response %d · %s tokens", p.N, watch.Thousands(p.Tokens))
		if p.Saved > 0 {
			caption += fmt.Sprintf(" · %s kept out by ctxkeep", watch.Short(p.Saved))
		}
		if !p.Time.IsZero() {
			caption += " · " + p.Time.Local().Format("15:04")
		}
		out = append(out, [3]any{round1(x(float64(p.N))), p.Tokens, caption})
	}
	return out
}

// xScale maps response numbers (from 1, possibly fractional) to chart
// coordinates.
func xScale(points int) func(float64) float64 {
	n := float64(max(points, 2))
	return func(i float64) float64 { return padL + (i-1)/(n-1)*(chartW-padL-padR) }
}

// yScale maps token counts to chart coordinates, top at the chart's top.
func yScale(top int64) func(int64) float64 {
	return func(v int64) float64 { return chartH - padB - float64(v)/float64(top)*(chartH-padT-padB) }
}

// yMax is the top of the chart: above the highest point and the
// threshold, at a round number.
func yMax(tl Timeline, l watch.Limits) int64 {
	top := l.AutoCompact
	for _, p := range tl.Points {
		top = max(top, p.Tokens+p.Saved)
	}
	step := niceStep(top)
	return int64(math.Ceil(float64(top)*1.04/float64(step))) * step
}

// niceStep is a round tick step giving about five ticks up to top.
func niceStep(top int64) int64 {
	if top <= 0 {
		return 1
	}
	raw := float64(top) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			return max(1, int64(m*mag))
		}
	}
	return max(1, int64(10*mag))
}

func newChart(tl Timeline, l watch.Limits) chartView {
	c := chartView{W: chartW, H: chartH, Left: padL, Right: chartW - padR, Top: padT, Bottom: chartH - padB}
	if len(tl.Points) == 0 {
		return c
	}
	top := yMax(tl, l)
	xf, y := xScale(len(tl.Points)), yScale(top)
	x := func(n int) float64 { return xf(float64(n)) }
	var line, saved strings.Builder
	for i, p := range tl.Points {
		cmd := "L"
		if i == 0 || tl.Points[i-1].Cycle != p.Cycle {
			cmd = "M"
		}
		fmt.Fprintf(&line, "%s%.1f %.1f ", cmd, x(p.N), y(p.Tokens))
		fmt.Fprintf(&saved, "%s%.1f %.1f ", cmd, x(p.N), y(p.Tokens+p.Saved))
	}
	c.Line = strings.TrimSpace(line.String())
	c.Saved = strings.TrimSpace(saved.String())
	c.Area = area(tl, x, y)
	c.Threshold, c.Warning = round1(y(l.AutoCompact)), round1(y(l.Warning))
	step := niceStep(top)
	for v := int64(0); v <= top; v += step {
		c.YTicks = append(c.YTicks, tick{At: round1(y(v)), Label: watch.Short(v)})
	}
	xstep := int(niceStep(int64(len(tl.Points))))
	for n := xstep; n <= len(tl.Points); n += xstep {
		c.XTicks = append(c.XTicks, tick{At: round1(x(n)), Label: fmt.Sprint(n)})
	}
	for _, m := range tl.Compactions {
		xx := xf(float64(m.After) + 0.5) // between the last response before it and the first after
		label := m.Trigger + " compaction"
		switch {
		case m.PreTokens > 0 && m.PostTokens > 0:
			label += fmt.Sprintf(" %s → %s", watch.Short(m.PreTokens), watch.Short(m.PostTokens))
		case m.PreTokens > 0:
			label += " at " + watch.Short(m.PreTokens)
		}
		c.Compactions = append(c.Compactions, compactionView{X: round1(min(max(xx, padL), chartW-padR)), Label: strings.TrimSpace(label)})
	}
	for _, s := range tl.Swaps {
		if !s.KeptOut() {
			continue // the model saw it, or it is not known yet: nothing to mark
		}
		p := tl.Points[s.At-1]
		c.Swaps = append(c.Swaps, swapView{X: round1(x(s.At)), Y: round1(y(p.Tokens)),
			Title: fmt.Sprintf("%s %s: ~%s tokens kept out (ctxkeep show %s)", s.Tool, s.ID, watch.Short(s.Tokens), s.ID)})
	}
	return c
}

// area is the filled shape under the line, one piece per compaction cycle.
func area(tl Timeline, x func(int) float64, y func(int64) float64) string {
	var b strings.Builder
	base := y(0)
	start := 0
	for i := 1; i <= len(tl.Points); i++ {
		if i < len(tl.Points) && tl.Points[i].Cycle == tl.Points[start].Cycle {
			continue
		}
		seg := tl.Points[start:i]
		fmt.Fprintf(&b, "M%.1f %.1f ", x(seg[0].N), base)
		for _, p := range seg {
			fmt.Fprintf(&b, "L%.1f %.1f ", x(p.N), y(p.Tokens))
		}
		fmt.Fprintf(&b, "L%.1f %.1f Z ", x(seg[len(seg)-1].N), base)
		start = i
	}
	return strings.TrimSpace(b.String())
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
