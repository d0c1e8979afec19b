package watch

import (
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// What the statusline and the warnings say swap kept out is what the
// transcript shows (the verdicts of internal/proof): the replacements
// applied and the outputs ctxkeep printed count, the others are named.
func TestKeptOutCountsWhatTheTranscriptShows(t *testing.T) {
	s := &ctxkeep.SwapStats{Entries: 8, Chars: 120_000, ViewChars: 8_000, Proof: ctxkeep.Proof{
		Applied: 4, Printed: 1, Unchecked: 2, NotApplied: 1, KeptOutChars: 48_000, UncheckedChars: 20_000,
	}}
	k := KeptOutOf(s)
	if got, want := k.Short(), "kept out ~12k (5; 2 unchecked, 1 not applied)"; got != want {
		t.Errorf("statusline %q, want %q", got, want)
	}
	w := Warning{Tokens: 150_000, Limits: Compute(200_000, ClientEnv{}), SwappedOut: k}
	if got := w.ForUser(); !strings.Contains(got, "Swap has kept 5 output(s), ~12k tokens, out of it so far; 2 more replaced, not checked yet; 1 replacement(s) the client did not apply") {
		t.Errorf("warning: %q", got)
	}
	for _, c := range []struct {
		p    ctxkeep.Proof
		want string
	}{
		{ctxkeep.Proof{Applied: 3, KeptOutChars: 4000}, "kept out ~1k (3)"},
		{ctxkeep.Proof{NotApplied: 8}, "kept out 0 (8 not applied)"},
		{ctxkeep.Proof{Unchecked: 2, UncheckedChars: 9000}, "kept out 0 (2 unchecked)"},
	} {
		if got := KeptOutOf(&ctxkeep.SwapStats{Proof: c.p}).Short(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
	if KeptOutOf(nil).Any() || (*SwappedOut)(nil).Any() {
		t.Error("nothing stored, yet something to say")
	}
}
