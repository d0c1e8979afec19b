// Package progress shows long work while it happens: one line on a
// terminal's stderr ("verifying blobs 1,204/5,000 (24%) · 3s"), redrawn in
// place and erased when the work is done. Off a terminal it draws nothing,
// so that pipes and logs get the results alone.
//
// Work deep in a package reports through the context (With, From), so that
// the packages doing the work take no display as a parameter and do not
// know whether anyone is watching. Every method is safe on a nil *Display,
// which draws nothing.
package progress

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/text"
)

// tick is how often a display is redrawn while nothing reports, to show
// the time going by.
const tick = 500 * time.Millisecond

// Display is the progress line of one command.
type Display struct {
	mu          sync.Mutex
	w           io.Writer
	on          bool
	label       string
	done, total int64
	bytes       bool
	start       time.Time
	drawn       string // the line on screen, "" when none
	drawnPct    int64
	drawnDone   int64
	stop        chan struct{}
}

// New returns a display writing to w, or one that draws nothing when on is
// false (w is not a terminal, or the output is a JSON document).
func New(w io.Writer, on bool) *Display {
	return &Display{w: w, on: on}
}

// Start begins a phase of the work: label, and how many steps it has (0
// when unknown: the line then shows the time spent).
func (d *Display) Start(label string, total int64) { d.begin(label, total, false) }

// StartBytes begins a phase counted in bytes.
func (d *Display) StartBytes(label string, total int64) { d.begin(label, total, true) }

func (d *Display) begin(label string, total int64, bytes bool) {
	if d == nil || !d.on {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.label, d.total, d.done, d.bytes, d.start = label, total, 0, bytes, time.Now()
	d.drawnPct, d.drawnDone = -1, 0
	d.draw()
	if d.stop == nil {
		d.stop = make(chan struct{})
		go d.ticker(d.stop)
	}
}

func (d *Display) ticker(stop chan struct{}) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			d.mu.Lock()
			if d.drawn != "" {
				d.draw()
			}
			d.mu.Unlock()
		}
	}
}

// Add counts n more steps done.
func (d *Display) Add(n int64) {
	if d == nil || !d.on {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.set(d.done + n)
}

// Set says how many steps are done.
func (d *Display) Set(n int64) {
	if d == nil || !d.on {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.set(n)
}

// set redraws when the percentage moved or a hundredth of the work was
// done since the last drawing: a million small steps do not make a million
// writes to the terminal.
func (d *Display) set(n int64) {
	d.done = n
	if d.total <= 0 || d.percent() != d.drawnPct || d.done-d.drawnDone >= max(1, d.total/100) {
		d.draw()
	}
}

// Println prints a line above the progress line (a failure worth telling
// as it happens), on a terminal only.
func (d *Display) Println(format string, args ...any) {
	if d == nil || !d.on {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	line := d.drawn
	d.erase()
	fmt.Fprintf(d.w, format+"\n", args...)
	if line != "" {
		d.draw()
	}
}

// Done erases the line: the work is over, its result follows.
func (d *Display) Done() {
	if d == nil || !d.on {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.erase()
	if d.stop != nil {
		close(d.stop)
		d.stop = nil
	}
}

func (d *Display) erase() {
	if d.drawn != "" {
		io.WriteString(d.w, "\r\x1b[K")
		d.drawn = ""
	}
}

func (d *Display) percent() int64 {
	if d.total <= 0 {
		return -1
	}
	return min(100, 100*d.done/d.total)
}

// draw writes the line again, over the one on screen.
func (d *Display) draw() {
	line := d.label
	switch {
	case d.total > 0 && d.bytes:
		line += fmt.Sprintf(" %s/%s (%d%%)", text.Bytes(d.done), text.Bytes(d.total), d.percent())
	case d.total > 0:
		line += fmt.Sprintf(" %d/%d (%d%%)", d.done, d.total, d.percent())
	default:
		line += "…"
	}
	if s := time.Since(d.start); s >= time.Second {
		line += fmt.Sprintf(" · %ds", int(s.Seconds()))
	}
	d.drawnPct, d.drawnDone = d.percent(), d.done
	if line == d.drawn {
		return
	}
	fmt.Fprintf(d.w, "\r\x1b[K%s", line)
	d.drawn = line
}

type key struct{}

// With returns ctx carrying d, for the work done under ctx to report to.
func With(ctx context.Context, d *Display) context.Context {
	return context.WithValue(ctx, key{}, d)
}

// From returns the display ctx carries, or nil (which draws nothing).
func From(ctx context.Context) *Display {
	d, _ := ctx.Value(key{}).(*Display)
	return d
}
