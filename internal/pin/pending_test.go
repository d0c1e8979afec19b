package pin

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

const session = "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10"

func TestClaimNothingPending(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "pins")) // not even created
	if p, ok, err := d.Claim(session); ok || err != nil {
		t.Fatalf("Claim = %+v, %t, %v", p, ok, err)
	}
}

// "next" pins exactly one output; a range pins every output until it
// ends; with both, the stronger level wins.
func TestClaimNextAndRange(t *testing.T) {
	d := Dir(t.TempDir())
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if _, err := d.Set(session, KindNext, Pending{Level: ctxkeep.PinHard, Reason: "the deploy log", Since: now}); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := d.Claim(session); !ok || err != nil || p.Level != ctxkeep.PinHard || p.Reason != "the deploy log" {
		t.Fatalf("first Claim = %+v, %t, %v", p, ok, err)
	}
	if _, ok, _ := d.Claim(session); ok {
		t.Fatal("next pinned two outputs")
	}

	if _, err := d.Set(session, KindRange, Pending{Level: ctxkeep.PinSoft, Since: now}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if p, ok, _ := d.Claim(session); !ok || p.Level != ctxkeep.PinSoft {
			t.Fatalf("Claim in a range = %+v, %t", p, ok)
		}
	}
	d.Set(session, KindNext, Pending{Level: ctxkeep.PinHard, Since: now})
	if p, _, _ := d.Claim(session); p.Level != ctxkeep.PinHard {
		t.Fatalf("next hard inside a soft range gave %v", p.Level)
	}
	d.Set(session, KindNext, Pending{Level: ctxkeep.PinNone, Since: now})
	if p, _, _ := d.Claim(session); p.Level != ctxkeep.PinSoft {
		t.Fatalf("next none inside a soft range gave %v", p.Level)
	}
	if p, ok, err := d.Take(session, KindRange); !ok || err != nil || p.Level != ctxkeep.PinSoft {
		t.Fatalf("Take range = %+v, %t, %v", p, ok, err)
	}
	if _, ok, _ := d.Claim(session); ok {
		t.Fatal("a closed range still pins")
	}
	if _, ok, _ := d.Take(session, KindRange); ok {
		t.Fatal("Take of no range")
	}
}

// Outputs stored at once by parallel tool calls race for one "next": only
// one gets it.
func TestConcurrentClaimsTakeNextOnce(t *testing.T) {
	d := Dir(t.TempDir())
	for round := range 20 {
		d.Set(session, KindNext, Pending{Level: ctxkeep.PinHard, Since: time.Now()})
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, ok, err := d.Claim(session); err != nil {
					t.Error(err)
				} else if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("round %d: %d outputs took the one pending next", round, won)
		}
	}
	if files, _ := os.ReadDir(string(d)); len(files) != 0 {
		t.Fatalf("left behind: %v", files)
	}
}

func TestListAndClear(t *testing.T) {
	d := Dir(t.TempDir())
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	d.Set(session, KindRange, Pending{Level: ctxkeep.PinSoft, Reason: "refactor", Since: t0})
	d.Set("other.session", KindNext, Pending{Level: ctxkeep.PinHard, Since: t0.Add(time.Minute)})
	os.WriteFile(filepath.Join(string(d), "junk"), []byte("x"), 0o600)
	w, err := d.List()
	if err != nil || len(w) != 2 || w[0].SessionID != session || w[0].Kind != KindRange || w[1].SessionID != "other.session" {
		t.Fatalf("List = %+v, %v", w, err)
	}
	if err := d.Clear(session); err != nil {
		t.Fatal(err)
	}
	if w, _ := d.List(); len(w) != 1 {
		t.Fatalf("after Clear: %+v", w)
	}
	if _, err := d.Set("../escape", KindNext, Pending{}); err == nil {
		t.Fatal("a session id with a path in it was accepted")
	}
}
