package watch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/config"
)

// Levels returns the configured warning levels, in percent of the
// auto-compaction threshold, ascending, without the ones turned off.
func Levels(w config.Watch) []int {
	var out []int
	for _, lv := range []int{w.NoticeAt, w.WarningAt, w.UrgentAt} {
		if lv > 0 && !slices.Contains(out, lv) {
			out = append(out, lv)
		}
	}
	slices.Sort(out)
	return out
}

// LimitsFor picks a session's context window and computes its thresholds:
// the window the client reported to the statusline when it did (it knows
// about 1M-token variants and its own overrides), else the configured
// window of the model. A session whose context went past that window
// (peak, the largest size seen) has a larger one, since the client never
// sends more than the window holds: the smallest known window that fits
// is taken, and Limits.Inferred says so.
func LimitsFor(cfg *config.Config, model string, reported, peak int64, env ClientEnv) Limits {
	window := reported
	if window <= 0 {
		window = cfg.WindowFor(model)
	}
	inferred := int64(0)
	if peak > window {
		inferred = fitWindow(cfg, peak)
	}
	l := Compute(max(window, inferred), env)
	if inferred > 0 {
		l.Inferred, l.Configured = true, window
	}
	return l
}

// largeWindow is the largest window Claude models come in: 1M tokens.
const largeWindow = 1_000_000

// fitWindow is the smallest known window holding tokens: the configured
// windows (window.*) and 1M, or the largest of them when none does.
func fitWindow(cfg *config.Config, tokens int64) int64 {
	best, largest := int64(0), int64(largeWindow)
	for _, w := range cfg.Window {
		largest = max(largest, w)
		if w >= tokens && (best == 0 || w < best) {
			best = w
		}
	}
	if largeWindow >= tokens && (best == 0 || largeWindow < best) {
		best = largeWindow
	}
	if best == 0 {
		return largest
	}
	return best
}

// Warning is what to tell the model and the user when the context has
// crossed a level.
type Warning struct {
	Level      int   // the level crossed, in percent of the threshold
	Last       bool  // it is the highest configured level
	Tokens     int64 // the context now
	Limits     Limits
	SwappedOut *SwappedOut // what swap kept out of this session so far; nil if unknown
	Client     string      // the client's name; "" is Claude Code
	// Compact is the client's command that compacts now: "" is /compact
	// (Claude Code's and Codex's); Gemini CLI's is /compress.
	Compact string
	// Show is how the model gets part of a stored output back: ctxkeep's
	// MCP tool when the session has it ("" is the command line).
	Show string
}

// ForModel is the additionalContext of the UserPromptSubmit hook: what
// the model can do to make the rest of the window last.
func (w Warning) ForModel() string {
	var b strings.Builder
	client := w.Client
	if client == "" {
		client = "Claude Code"
	}
	fmt.Fprintf(&b, "ctxkeep: the context is at %d%% of the point where %s compacts it automatically (%s of %s tokens; window %s).",
		w.Level, client, Thousands(w.Tokens), Thousands(w.Limits.reference()), Thousands(w.Limits.Window))
	show := w.Show
	if show == "" {
		show = "`ctxkeep show ID --grep RE`, `--lines A:B`, `--failures`"
	}
	b.WriteString(" To make the rest last: read files with offset/limit instead of whole, do not re-read what is already above, narrow searches," +
		" and get outputs ctxkeep stored back in part (" + show + ") rather than whole.")
	if w.Last {
		b.WriteString(" Compaction is close: finish the current step, write down where you are (files, decisions, next step)," +
			" and suggest the user run " + w.compact() + " at this natural break.")
	}
	return b.String()
}

// ForUser is the systemMessage: the figures, and what ctxkeep offers.
func (w Warning) ForUser() string {
	var b strings.Builder
	l := w.Limits
	fmt.Fprintf(&b, "ctxkeep: context %s of %s (%.0f%% of the window); ", Short(w.Tokens), Short(l.Window), l.OfWindow(w.Tokens))
	if l.AutoCompactOn {
		fmt.Fprintf(&b, "auto-compaction at %s, %s away.", Short(l.AutoCompact), Short(max(0, l.ToCompaction(w.Tokens))))
	} else {
		fmt.Fprintf(&b, "auto-compaction is off; the client stops at %s.", Short(l.Blocking))
	}
	if k := w.SwappedOut; k.Any() {
		if k.Entries > 0 {
			fmt.Fprintf(&b, " Swap has kept %d output(s), ~%s tokens, out of it so far", k.Entries, Short(k.Tokens()))
		} else {
			b.WriteString(" Swap has kept nothing out of it yet, as far as the transcript shows")
		}
		if k.Unchecked > 0 {
			fmt.Fprintf(&b, "; %d more replaced, not checked yet", k.Unchecked)
		}
		if k.NotApplied > 0 {
			fmt.Fprintf(&b, "; %d replacement(s) the client did not apply (`ctxkeep doctor`)", k.NotApplied)
		}
		b.WriteString(".")
	}
	b.WriteString(" `ctxkeep context` shows where the tokens went;")
	b.WriteString(" " + w.compact() + " at a natural break keeps more than an automatic compaction mid-task.")
	return b.String()
}

func (w Warning) compact() string {
	if w.Compact == "" {
		return "/compact"
	}
	return w.Compact
}

// Short writes a token count the way the statusline does: 950, 12.3k,
// 1.2M.
func Short(n int64) string {
	switch a := max(n, -n); {
	case a < 1000:
		return fmt.Sprint(n)
	case a < 100_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1000)) + "k"
	case a < 1_000_000:
		return fmt.Sprintf("%.0fk", float64(n)/1000)
	default:
		return trimZero(fmt.Sprintf("%.2f", float64(n)/1e6)) + "M"
	}
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Thousands writes n with comma separators: 134,512.
func Thousands(n int64) string {
	s := fmt.Sprint(max(n, -n))
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
