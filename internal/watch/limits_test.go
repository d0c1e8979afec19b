package watch

import (
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/config"
)

// TestComputeMatchesTheClient checks the arithmetic against what the
// client was measured to do (claude-code-hooks.md §7.1, usage ramping by
// 10k a request: it compacted at the first figure at or past the
// threshold) and against the reference's own figures for claude-opus-5-5.
func TestComputeMatchesTheClient(t *testing.T) {
	tests := []struct {
		name        string
		window      int64
		env         map[string]string
		autoCompact int64
		compactedAt int64 // measured: compacted at this figure…
		notAt       int64 // …and not at this one
	}{
		{"opus-5-5, 1M", 1_000_000, nil, 967_000, 0, 0},
		{"window 200k", 200_000, nil, 167_000, 170_000, 160_000},
		{"window 200k, PCT=80", 200_000, map[string]string{EnvPctOverride: "80"}, 144_000, 150_000, 140_000},
		{"PCT=50 on 1M", 1_000_000, map[string]string{EnvPctOverride: "50"}, 490_000, 490_000, 480_000},
		{"--autocompact 150000", 1_000_000, map[string]string{EnvAutoCompactWindow: "150000"}, 117_000, 120_000, 110_000},
		{"PCT=99 cannot raise it", 200_000, map[string]string{EnvPctOverride: "99"}, 167_000, 0, 0},
		{"window below 100k is raised to it", 1_000_000, map[string]string{EnvAutoCompactWindow: "50000"}, 67_000, 0, 0},
		{"window in k", 1_000_000, map[string]string{EnvAutoCompactWindow: "150k"}, 117_000, 0, 0},
		{"window larger than the model's", 200_000, map[string]string{EnvAutoCompactWindow: "1m"}, 167_000, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Compute(tt.window, ReadClientEnv(func(k string) string { return tt.env[k] }))
			if l.AutoCompact != tt.autoCompact {
				t.Fatalf("auto-compaction at %d, want %d (%+v)", l.AutoCompact, tt.autoCompact, l)
			}
			if tt.compactedAt > 0 && l.Level(tt.compactedAt) != Compact {
				t.Errorf("%d: level %s, want compact", tt.compactedAt, l.Level(tt.compactedAt))
			}
			if tt.notAt > 0 && l.Level(tt.notAt) == Compact {
				t.Errorf("%d: compacts, but the client did not", tt.notAt)
			}
		})
	}
}

func TestLimitsLevels(t *testing.T) {
	l := Compute(200_000, ClientEnv{})
	want := Limits{Window: 200_000, Effective: 180_000, AutoCompact: 167_000, Warning: 147_000, Blocking: 177_000, AutoCompactOn: true}
	if l != want {
		t.Fatalf("got %+v, want %+v", l, want)
	}
	for tokens, level := range map[int64]Level{146_999: OK, 147_000: Warn, 167_000: Compact, 177_000: Blocked} {
		if got := l.Level(tokens); got != level {
			t.Errorf("Level(%d) = %s, want %s", tokens, got, level)
		}
	}
	off := Compute(200_000, ReadClientEnv(func(k string) string {
		if k == EnvDisableAuto {
			return "1"
		}
		return ""
	}))
	if off.AutoCompactOn || off.Warning != 160_000 || off.Level(170_000) != Warn || off.OfThreshold(90_000) != 50 {
		t.Errorf("auto-compaction off: %+v", off)
	}
	if got := Compute(200_000, ClientEnv{BlockingOverride: 150_000}).Blocking; got != 150_000 {
		t.Errorf("blocking override: %d", got)
	}
	if (Limits{}).Level(5) != Unlimited {
		t.Error("no window: want unlimited")
	}
}

func TestReadClientEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want ClientEnv
	}{
		{nil, ClientEnv{}},
		{map[string]string{EnvPctOverride: "75"}, ClientEnv{PctOverride: 75}},
		{map[string]string{EnvPctOverride: "75.5%"}, ClientEnv{PctOverride: 75.5}}, // parseFloat stops at %
		{map[string]string{EnvPctOverride: "0"}, ClientEnv{}},
		{map[string]string{EnvPctOverride: "101"}, ClientEnv{}},
		{map[string]string{EnvPctOverride: "lots"}, ClientEnv{}},
		{map[string]string{EnvAutoCompactWindow: "250000"}, ClientEnv{AutoCompactWindow: 250_000}},
		{map[string]string{EnvAutoCompactWindow: "0.5m"}, ClientEnv{AutoCompactWindow: 500_000}},
		{map[string]string{EnvAutoCompactWindow: "12"}, ClientEnv{AutoCompactWindow: 100_000}},
		{map[string]string{EnvAutoCompactWindow: "big"}, ClientEnv{}},
		{map[string]string{EnvDisableCompact: "true"}, ClientEnv{AutoCompactOff: true}},
		{map[string]string{EnvDisableAuto: "0"}, ClientEnv{}},
		{map[string]string{EnvBlockingOverride: "190000"}, ClientEnv{BlockingOverride: 190_000}},
	}
	for _, tt := range tests {
		if got := ReadClientEnv(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: got %+v, want %+v", tt.env, got, tt.want)
		}
	}
}

func TestShortAndThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 1000: "1k", 12_345: "12.3k", 167_000: "167k", 1_000_000: "1M", 1_250_000: "1.25M", -2500: "-2.5k"} {
		if got := Short(n); got != want {
			t.Errorf("Short(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 134_512: "134,512", -1_000_000: "-1,000,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"", "150000", "150k", "1m", "0.5M", "-3", "1e9", "99999999999999999999k", " 2k "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := parseWindow(s)
		if n != 0 && n < minAutoCompactWindow {
			t.Fatalf("parseWindow(%q) = %d: below the minimum", s, n)
		}
	})
}

func FuzzParseStatusInput(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t.jsonl","model":{"id":"claude-opus-5-5"},"context_window":{"context_window_size":1000000,"current_usage":{"input_tokens":3}}}`))
	f.Add([]byte(`{"context_window":{"context_window_size":"big"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseStatusInput(data)
		if err != nil {
			return
		}
		g := Gauge{Tokens: 1, Known: true, Limits: Compute(max(in.sizeOrZero(), 1), ClientEnv{}), Levels: []int{70}}
		if line := g.Line(false); line == "" {
			t.Fatal("empty statusline")
		}
	})
}

func (in StatusInput) sizeOrZero() int64 {
	if in.ContextWindow == nil {
		return 0
	}
	return in.ContextWindow.Size
}

// A session that went past its configured window without compacting has a
// larger one: the smallest known window that holds it, said to be
// inferred. A reported window is trusted the same way.
func TestLimitsForInfersALargerWindow(t *testing.T) {
	cfg, _, err := config.Load(config.Files{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name           string
		reported, peak int64
		window         int64
		inferred       bool
		configured     int64
	}{
		{"within the window", 0, 150_000, 200_000, false, 0},
		{"at the window", 0, 200_000, 200_000, false, 0},
		{"past it: 1M", 0, 535_149, 1_000_000, true, 200_000},
		{"reported 1M", 1_000_000, 535_149, 1_000_000, false, 0},
		{"past every known window", 0, 3_000_000, 1_000_000, true, 200_000},
	} {
		l := LimitsFor(cfg, "claude-sonnet-4-20250514", c.reported, c.peak, ClientEnv{})
		if l.Window != c.window || l.Inferred != c.inferred || l.Configured != c.configured {
			t.Errorf("%s: window %d inferred %v (configured %d), want %d %v (%d)", c.name, l.Window, l.Inferred, l.Configured, c.window, c.inferred, c.configured)
		}
		if c.window == 1_000_000 && l.AutoCompact != 967_000 {
			t.Errorf("%s: auto-compaction at %d, want 967,000 for a 1M window", c.name, l.AutoCompact)
		}
	}
	// A configured window between the two is the one that fits.
	cfg.Window["claude-x"] = 500_000
	if l := LimitsFor(cfg, "claude-sonnet", 0, 300_000, ClientEnv{}); l.Window != 500_000 || !l.Inferred {
		t.Errorf("window %d inferred %v, want the configured 500k that fits", l.Window, l.Inferred)
	}
}
