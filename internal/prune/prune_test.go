package prune

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func defaults(t *testing.T) *config.Config {
	cfg, _, err := config.Load(config.Files{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// entry makes an entry of session "s" with its own 1000-byte blob.
func entry(id string, level ctxkeep.PinLevel, age time.Duration, retrievals int) ctxkeep.Entry {
	e := ctxkeep.Entry{ID: id, SessionID: "s", Hash: ctxkeep.Hash("h-" + id), CreatedAt: now.Add(-age), PinLevel: level, AccessCount: retrievals}
	if retrievals > 0 {
		e.LastAccess = e.CreatedAt.Add(time.Minute)
	}
	return e
}

func state(es ...ctxkeep.Entry) *State {
	st := &State{Entries: es, Sizes: map[ctxkeep.Hash]int64{}, Sessions: map[string]ctxkeep.Session{}}
	for _, e := range es {
		if _, ok := st.Sizes[e.Hash]; !ok {
			st.Sizes[e.Hash] = 1000
			st.Total += 1000
		}
	}
	return st
}

func ids(p *Plan) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.Entry.ID)
	}
	return out
}

// By age, only unpinned outputs go, whatever their age: a soft pin is
// taken by size only, a hard pin never.
func TestAgeTakesOnlyUnpinned(t *testing.T) {
	cfg := defaults(t)
	old := 400 * 24 * time.Hour
	st := state(entry("none", ctxkeep.PinNone, old, 0), entry("soft", ctxkeep.PinSoft, old, 0), entry("hard", ctxkeep.PinHard, old, 0))
	p := Make(st, cfg, Options{Now: now})
	if got := ids(p); !slices.Equal(got, []string{"none"}) || p.Items[0].Reason != Expired {
		t.Fatalf("plan = %v", p.Items)
	}
	p = Make(st, cfg, Options{Now: now, MaxAge: time.Hour})
	if got := ids(p); !slices.Equal(got, []string{"none"}) {
		t.Fatalf("--max-age plan = %v", got)
	}
}

// Retention: an output of an active session stays (retention.default after
// the session was last seen); one never retrieved goes
// retention.never_retrieved after it was stored; one retrieved lives
// retention.retrieved after its last retrieval.
func TestRetentionRules(t *testing.T) {
	cfg := defaults(t) // default 24h, retrieved 48h, never retrieved 6h
	cases := []struct {
		name        string
		e           ctxkeep.Entry
		sessionIdle time.Duration
		goes        bool
	}{
		{"fresh", entry("a", ctxkeep.PinNone, time.Hour, 0), 30 * time.Hour, false},
		{"never retrieved, session idle", entry("a", ctxkeep.PinNone, 26*time.Hour, 0), 25 * time.Hour, true},
		{"never retrieved, session active", entry("a", ctxkeep.PinNone, 7*time.Hour, 0), time.Hour, false},
		{"retrieved recently, session idle", entry("a", ctxkeep.PinNone, 30*time.Hour, 1), 25 * time.Hour, false}, // retrieved 29h59m ago
		{"retrieved long ago, session idle", entry("a", ctxkeep.PinNone, 50*time.Hour, 1), 25 * time.Hour, true},
	}
	for _, c := range cases {
		st := state(c.e)
		st.Sessions["s"] = ctxkeep.Session{LastSeen: now.Add(-c.sessionIdle)}
		if got := len(Make(st, cfg, Options{Now: now}).Items) == 1; got != c.goes {
			t.Errorf("%s: goes = %t, want %t (expiry %v)", c.name, got, c.goes, Expiry(c.e, now.Add(-c.sessionIdle), cfg.Retention))
		}
	}
}

// Over the size limit, outputs go in this order: unpinned never retrieved
// (oldest first), unpinned retrieved, then, only when asked (SoftPins),
// soft pins in the same order; hard pins never, even if the store stays
// over the limit.
func TestSizeOrderByLevel(t *testing.T) {
	cfg := defaults(t)
	es := []ctxkeep.Entry{
		entry("hard-old", ctxkeep.PinHard, 90*time.Minute, 0),
		entry("soft-new", ctxkeep.PinSoft, 10*time.Minute, 0),
		entry("soft-old", ctxkeep.PinSoft, 80*time.Minute, 0),
		entry("none-got", ctxkeep.PinNone, 70*time.Minute, 2),
		entry("none-new", ctxkeep.PinNone, 20*time.Minute, 0),
		entry("none-old", ctxkeep.PinNone, 60*time.Minute, 0),
	}
	want := []string{"none-old", "none-new", "none-got", "soft-old", "soft-new"}
	for keep := 6; keep >= 1; keep-- {
		st := state(es...)
		p := Make(st, cfg, Options{Now: now, MaxBytes: int64(keep) * 1000, SoftPins: true})
		n := min(6-keep, 5)
		if got := ids(p); !slices.Equal(got, want[:n]) {
			t.Errorf("down to %d bytes: removed %v, want %v", keep*1000, got, want[:n])
		}
		auto := Make(state(es...), cfg, Options{Now: now, MaxBytes: int64(keep) * 1000})
		if got := ids(auto); !slices.Equal(got, want[:min(n, 3)]) {
			t.Errorf("down to %d bytes without SoftPins: removed %v, want %v", keep*1000, got, want[:min(n, 3)])
		}
		for _, it := range p.Items {
			if it.Entry.PinLevel == ctxkeep.PinHard {
				t.Fatalf("a hard pin was planned: %+v", it)
			}
		}
	}
}

// Without --max-size, a store over limits.total_bytes is brought down to
// AutoTarget of it; under the limit, size removes nothing.
func TestAutoSizeLimit(t *testing.T) {
	cfg := defaults(t)
	cfg.Limits.TotalBytes = 10_000
	var es []ctxkeep.Entry
	for i := range 12 {
		es = append(es, entry(fmt.Sprintf("e%02d", i), ctxkeep.PinNone, time.Duration(60-i)*time.Minute, 0))
	}
	p := Make(state(es...), cfg, Options{Now: now})
	if p.Before != 12_000 || p.After != 9_000 || p.Target != 9_000 || len(p.Items) != 3 || p.Items[0].Entry.ID != "e00" {
		t.Fatalf("plan: before %d after %d target %d, %v", p.Before, p.After, p.Target, ids(p))
	}
	if p := Make(state(es[:10]...), cfg, Options{Now: now}); len(p.Items) != 0 {
		t.Fatalf("at the limit: %v", ids(p))
	}
}

// A blob shared by several outputs is freed with the last of them.
func TestSharedBlobFreedWithItsLastEntry(t *testing.T) {
	a, b := entry("a", ctxkeep.PinNone, 30*time.Hour, 0), entry("b", ctxkeep.PinNone, 40*time.Hour, 0)
	b.Hash = a.Hash
	st := state(a, b)
	p := Make(st, defaults(t), Options{Now: now, MaxAge: time.Hour})
	if len(p.Items) != 2 || p.Items[0].Frees != 0 || p.Items[1].Frees != 1000 || p.Frees() != 1000 {
		t.Fatalf("plan = %+v", p.Items)
	}
	c := entry("c", ctxkeep.PinHard, time.Minute, 0)
	c.Hash = a.Hash
	st = state(a, b, c)
	if p := Make(st, defaults(t), Options{Now: now, MaxAge: time.Hour}); p.Frees() != 0 {
		t.Fatalf("freed a blob a hard pin still uses: %+v", p.Items)
	}
}

func TestEntriesPerSession(t *testing.T) {
	cfg := defaults(t)
	cfg.Limits.EntriesPerSession = 3
	st := state(entry("p1", ctxkeep.PinHard, 5*time.Minute, 0), entry("u1", ctxkeep.PinNone, 4*time.Minute, 0),
		entry("u2", ctxkeep.PinNone, 3*time.Minute, 0), entry("u3", ctxkeep.PinNone, 2*time.Minute, 0), entry("u4", ctxkeep.PinNone, time.Minute, 0))
	// Entries come oldest first, as the index lists them.
	if got := ids(Make(st, cfg, Options{Now: now})); !slices.Equal(got, []string{"u1", "u2"}) {
		t.Fatalf("removed %v, want the two oldest unpinned", got)
	}
}

func TestSessionEndedAndUnreferenced(t *testing.T) {
	cfg := defaults(t)
	mine := []ctxkeep.Entry{entry("m1", ctxkeep.PinNone, time.Minute, 0), entry("m2", ctxkeep.PinSoft, time.Minute, 0)}
	other := entry("o1", ctxkeep.PinNone, time.Minute, 0)
	other.SessionID = "other"
	st := state(append(mine, other)...)
	if got := ids(Make(st, cfg, Options{Now: now, Session: "s"})); !slices.Equal(got, []string{"m1"}) {
		t.Fatalf("session end removed %v", got)
	}
	st.TranscriptGone = func(s string) bool { return s == "other" }
	if got := ids(Make(st, cfg, Options{Now: now, Unreferenced: true})); !slices.Equal(got, []string{"o1"}) {
		t.Fatalf("--gc-unreferenced removed %v", got)
	}
	if got := ids(Make(st, cfg, Options{Now: now})); len(got) != 0 {
		t.Fatalf("without options removed %v", got)
	}
}

func TestLimitCapsTheRun(t *testing.T) {
	var es []ctxkeep.Entry
	for i := range 10 {
		es = append(es, entry(fmt.Sprint(i), ctxkeep.PinNone, 400*time.Hour, 0))
	}
	if p := Make(state(es...), defaults(t), Options{Now: now, Limit: 4}); len(p.Items) != 4 {
		t.Fatalf("planned %d, want 4", len(p.Items))
	}
}
