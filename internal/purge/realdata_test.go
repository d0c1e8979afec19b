package purge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var spotterSessions = realdata.Spotter

// On real sessions: the result is well formed, every stub names content
// whose SHA-256 is the original result's, every line purge did not mean to
// change is there byte for byte, and a second purge changes nothing.
func TestPurgeRealSessions(t *testing.T) {
	for _, path := range spotterSessions(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			p := tr.Plan(Options{})
			out, err := p.Render()
			if err != nil {
				t.Fatal(err)
			}
			wellFormed(t, out)
			if len(out) >= len(tr.Data) || len(p.Stubs) == 0 || p.Thinking.Removed == 0 {
				t.Fatalf("%d → %d bytes, %d stubs, %+v", len(tr.Data), len(out), len(p.Stubs), p.Thinking)
			}
			originals := resultTexts(tr.records())
			for _, s := range p.Stubs {
				if ctxkeep.Sum([]byte(originals[s.ToolUseID])) != s.Hash || !bytes.Contains(out, []byte(s.ID)) {
					t.Fatalf("stub %s of %s does not match its original", s.ID, s.ToolUseID)
				}
			}
			kept := map[string]bool{}
			for _, l := range bytes.Split(out, []byte("\n")) {
				kept[string(l)] = true
			}
			for i, l := range tr.Lines {
				if !p.drop[i] && !p.changed(i) && !kept[string(l.Raw)] {
					t.Fatalf("line %d was changed", i+1)
				}
			}
			if p2 := Parse(out).Plan(Options{}); p2.Changes() {
				t.Fatalf("a second purge still changes: %+v, %d stubs, %+v", p2.Repairs, len(p2.Stubs), p2.Thinking)
			}
		})
	}
}

// resultTexts maps tool_use ids to the text of their results.
func resultTexts(recs []transcript.Record) map[string]string {
	out := map[string]string{}
	for _, r := range recs {
		if r.Type != transcript.TypeUser || r.Message == nil {
			continue
		}
		for _, b := range r.Message.Content.Blocks {
			if b.Type == transcript.BlockToolResult {
				out[b.ToolUseID], _ = textOf(b.Content)
			}
		}
	}
	return out
}

// Keep stores every stubbed result before the transcript names it; the
// store gives back exactly what the transcript held; a second StoreStubs of the
// same results stores nothing new and keeps the pins the user changed.
func TestStoreStubsStoresEveryStub(t *testing.T) {
	ctx := context.Background()
	st := storetest.Local(t, t.TempDir())
	big := bigFailure()
	tr := Parse(session(big).bytes())
	tr.SessionID = testSession
	p := tr.Plan(Options{})
	if err := p.StoreStubs(ctx, st, time.Now()); err != nil {
		t.Fatal(err)
	}
	e, err := st.Entry(ctx, p.Stubs[0].ID)
	if err != nil || e.PinLevel != ctxkeep.PinSoft || e.SessionID != testSession || e.ToolUseID != "toolu_a" || *e.ExitCode != 1 {
		t.Fatalf("entry = %+v, %v", e, err)
	}
	if data, err := st.Open(ctx, e.Hash); err != nil || string(data) != big {
		t.Fatalf("stored %d bytes, %v", len(data), err)
	}
	st.SetPin(ctx, e.ID, ctxkeep.PinHard, "mine")
	p = tr.Plan(Options{})
	if err := p.StoreStubs(ctx, st, time.Now()); err != nil {
		t.Fatal(err)
	}
	out, _ := p.Render()
	if e, _ := st.Entry(ctx, e.ID); e.PinLevel != ctxkeep.PinHard || !strings.Contains(string(out), "pinned: hard") {
		t.Fatalf("the user's pin was lost: %+v", e)
	}
}

// BenchmarkPurge measures planning and rendering a purge of each real
// session (no store, no disk): the work `ctxkeep purge` does besides
// storing the results and writing the file.
func BenchmarkPurge(b *testing.B) {
	for _, path := range spotterSessions(b) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path)[:8], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var out []byte
			for b.Loop() {
				out, err = Parse(data).Plan(Options{}).Render()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(100*float64(len(data)-len(out))/float64(len(data)), "%smaller")
		})
	}
}
