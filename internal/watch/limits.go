// Package watch tells how full a session's context is and how far it is
// from the client's thresholds: the exact figure from the transcript, the
// auto-compaction, warning and blocking points the client computes, and
// when to warn about them. It is on the hook path, so it reads transcripts
// incrementally and never loads a tokenizer.
package watch

import (
	"math"
	"strconv"
	"strings"
)

// The client's constants (Claude Code 2.1.330; docs/WATCH.md says where
// each one was read).
const (
	// outputReserve is kept free for the response: the effective window is
	// the window less min(the model's max output tokens, 20k).
	outputReserve = 20_000
	// compactBuffer lies between the effective window and the default
	// auto-compaction threshold.
	compactBuffer = 13_000
	// warningBuffer: the client warns this far below its threshold.
	warningBuffer = 20_000
	// blockingBuffer: the client refuses new input this close to the
	// effective window of the model (not of the auto-compact window).
	blockingBuffer = 3_000
	// minAutoCompactWindow is the smallest CLAUDE_CODE_AUTO_COMPACT_WINDOW
	// the client accepts; smaller values are raised to it.
	minAutoCompactWindow = 100_000
)

// ClientEnv is what in the client's environment moves its thresholds.
type ClientEnv struct {
	// AutoCompactWindow is CLAUDE_CODE_AUTO_COMPACT_WINDOW in tokens (raised
	// to 100k as the client does), 0 when unset or unreadable.
	AutoCompactWindow int64
	// PctOverride is CLAUDE_AUTOCOMPACT_PCT_OVERRIDE when in (0, 100], else 0.
	PctOverride float64
	// AutoCompactOff is DISABLE_AUTO_COMPACT or DISABLE_COMPACT.
	AutoCompactOff bool
	// BlockingOverride is CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE, 0 when unset.
	BlockingOverride int64
}

// The variables ClientEnv reads.
const (
	EnvAutoCompactWindow = "CLAUDE_CODE_AUTO_COMPACT_WINDOW"
	EnvPctOverride       = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
	EnvDisableAuto       = "DISABLE_AUTO_COMPACT"
	EnvDisableCompact    = "DISABLE_COMPACT"
	EnvBlockingOverride  = "CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE"
)

// ReadClientEnv reads the variables with getenv, the way the client parses
// them.
func ReadClientEnv(getenv func(string) string) ClientEnv {
	var e ClientEnv
	e.AutoCompactWindow = parseWindow(getenv(EnvAutoCompactWindow))
	if p, err := strconv.ParseFloat(leadingNumber(getenv(EnvPctOverride)), 64); err == nil && p > 0 && p <= 100 {
		e.PctOverride = p
	}
	e.AutoCompactOff = truthy(getenv(EnvDisableAuto)) || truthy(getenv(EnvDisableCompact))
	if n, err := strconv.ParseInt(strings.TrimSpace(getenv(EnvBlockingOverride)), 10, 64); err == nil && n > 0 {
		e.BlockingOverride = n
	}
	return e
}

// parseWindow reads a window as the client does: "150000", "150k", "1m";
// below 100k it is raised to 100k; anything else is ignored (0).
func parseWindow(s string) int64 {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	var v float64
	switch strings.ToLower(s[len(s)-1:]) {
	case "k", "m":
		f, err := strconv.ParseFloat(leadingNumber(s[:len(s)-1]), 64)
		if err != nil {
			return 0
		}
		v = f * 1000
		if strings.EqualFold(s[len(s)-1:], "m") {
			v = f * 1_000_000
		}
	default:
		n, err := strconv.ParseInt(leadingDigits(s), 10, 64)
		if err != nil {
			return 0
		}
		v = float64(n)
	}
	n := int64(math.Round(v))
	if n < 1 || v > 1<<53 {
		return 0
	}
	return max(n, minAutoCompactWindow)
}

// leadingNumber is the longest prefix of s that parseFloat would read, as
// JavaScript's parseFloat ignores what follows a number.
func leadingNumber(s string) string {
	s = strings.TrimSpace(s)
	end, dot := 0, false
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		case (c == '-' || c == '+') && i == 0:
		default:
			return s[:end]
		}
		end = i + 1
	}
	return s[:end]
}

// leadingDigits is s's prefix that parseInt(s, 10) would read.
func leadingDigits(s string) string {
	end := 0
	for i, c := range s {
		if (c < '0' || c > '9') && !((c == '-' || c == '+') && i == 0) {
			break
		}
		end = i + 1
	}
	return s[:end]
}

// truthy is the client's reading of a boolean variable.
func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Limits are a session's thresholds, in tokens of context (input + cache
// creation + cache reads + output of the last response, §8.3).
type Limits struct {
	Window      int64 `json:"window"`       // the model's context window
	Effective   int64 `json:"effective"`    // the auto-compact window less the output reserve
	AutoCompact int64 `json:"auto_compact"` // where the client compacts by itself
	Warning     int64 `json:"warning"`      // where the client starts warning
	Blocking    int64 `json:"blocking"`     // where the client refuses new input
	// AutoCompactOn is false when the client will not compact by itself
	// (DISABLE_AUTO_COMPACT, DISABLE_COMPACT): then the warning and the
	// percentages count from Effective instead of AutoCompact.
	AutoCompactOn bool    `json:"auto_compact_on"`
	PctOverride   float64 `json:"pct_override,omitempty"` // the override in force, 0 for none
	// Inferred says the window is not the one reported or configured
	// (Configured): the session's context went past that one, so its real
	// window is larger (LimitsFor).
	Inferred   bool  `json:"window_inferred,omitempty"`
	Configured int64 `json:"configured_window,omitempty"`
}

// Compute returns the thresholds the client derives for a model of the
// given window in the given environment:
//
//	acWindow    = min(window, CLAUDE_CODE_AUTO_COMPACT_WINDOW)
//	effective   = acWindow − 20k
//	autoCompact = effective − 13k, or min(⌊effective × PCT/100⌋, effective − 13k)
//	warning     = (autoCompact, or effective when auto-compaction is off) − 20k
//	blocking    = window − 20k − 3k, or CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE
func Compute(window int64, env ClientEnv) Limits {
	ac := window
	if env.AutoCompactWindow > 0 {
		ac = min(window, env.AutoCompactWindow)
	}
	l := Limits{Window: window, Effective: ac - outputReserve, AutoCompactOn: !env.AutoCompactOff, PctOverride: env.PctOverride}
	l.AutoCompact = l.Effective - compactBuffer
	if p := env.PctOverride; p > 0 {
		l.AutoCompact = min(int64(math.Floor(float64(l.Effective)*p/100)), l.AutoCompact)
	}
	l.Warning = l.reference() - warningBuffer
	l.Blocking = window - outputReserve - blockingBuffer
	if env.BlockingOverride > 0 {
		l.Blocking = env.BlockingOverride
	}
	return l
}

// reference is what the client counts its percentages from: the
// auto-compaction threshold, or the effective window without it.
func (l Limits) reference() int64 {
	if l.AutoCompactOn {
		return l.AutoCompact
	}
	return l.Effective
}

// Level names where tokens stand, as the client sees it.
type Level string

const (
	OK        Level = "ok"
	Warn      Level = "warn"      // past the client's warning point
	Compact   Level = "compact"   // past the auto-compaction threshold: the next request compacts
	Blocked   Level = "blocked"   // past the blocking limit
	Unlimited Level = "unlimited" // no window known
)

// Level returns where tokens stand, checked in the client's order.
func (l Limits) Level(tokens int64) Level {
	switch {
	case l.Window <= 0:
		return Unlimited
	case tokens >= l.Blocking:
		return Blocked
	case l.AutoCompactOn && tokens >= l.AutoCompact:
		return Compact
	case tokens >= l.Warning:
		return Warn
	}
	return OK
}

// OfWindow is tokens in percent of the window, as the client's statusLine
// used_percentage (which counts input only) and `/context` show it.
func (l Limits) OfWindow(tokens int64) float64 { return percent(tokens, l.Window) }

// OfThreshold is tokens in percent of the auto-compaction threshold (of
// the effective window when auto-compaction is off): 100 means the next
// request compacts. Warnings are set on this scale so that 90% is always
// reached before compaction, whatever the window.
func (l Limits) OfThreshold(tokens int64) float64 { return percent(tokens, l.reference()) }

// ToCompaction is how many tokens are left before auto-compaction (before
// the effective window when it is off); negative once past it.
func (l Limits) ToCompaction(tokens int64) int64 { return l.reference() - tokens }

func percent(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// Fixed are the limits of a client that compacts at a fixed point of its
// window, autoCompact (0: never), and warns nowhere before it (Codex:
// codex.Thresholds).
func Fixed(window, autoCompact int64) Limits {
	return Limits{Window: window, Effective: window, AutoCompact: autoCompact, Warning: autoCompact, Blocking: window, AutoCompactOn: autoCompact > 0}
}
