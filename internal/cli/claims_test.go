package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// proofSession is a session where ctxkeep replaced three outputs and the
// transcript — the proof's ground truth — shows one replacement applied
// (its tool_result holds the view), one not applied (it holds the
// original), and one not checkable yet (no result written yet).
type proofSession struct {
	s          *sandbox
	id, path   string
	applied    ctxkeep.Entry // the entry whose view the transcript holds
	keptTokens int64         // (original − view) characters / 4 of it
}

const proofSessionID = "7d1e2c4a-9b3f-4e6d-8a21-5c0f9e3b7a64"

func newProofSession(t *testing.T) *proofSession {
	s := newSandbox(t)
	s.env["CLAUDE_PROJECT_DIR"] = "/p"
	p := &proofSession{s: s, id: proofSessionID, path: filepath.Join(s.home, ".claude/projects/-p", proofSessionID+".jsonl")}
	os.MkdirAll(filepath.Dir(p.path), 0o700)
	views, originals := map[string]json.RawMessage{}, map[string]string{}
	for _, id := range []string{"toolu_applied", "toolu_refused", "toolu_pending"} {
		views[id], originals[id] = p.post(id)
	}
	session := `"sessionId":"` + p.id + `","cwd":"/p"`
	result := func(id string, structured json.RawMessage, content string) string {
		c, _ := json.Marshal(content)
		return `{"type":"user","uuid":"u-` + id + `","parentUuid":"a1",` + session + `,"timestamp":"2026-11-21T10:00:10Z","toolUseResult":` + string(structured) +
			`,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + string(c) + `}]}}`
	}
	original, _ := json.Marshal(map[string]any{"stdout": originals["toolu_refused"], "stderr": "", "interrupted": false, "isImage": false})
	var view struct{ Stdout string }
	json.Unmarshal(views["toolu_applied"], &view)
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,` + session + `,"timestamp":"2026-11-21T10:00:00Z","message":{"role":"user","content":"Run the builds."}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1",` + session + `,"timestamp":"2026-11-21T10:00:05Z","message":{"id":"m1","model":"claude-opus-4-6","role":"assistant","content":[` +
			`{"type":"tool_use","id":"toolu_applied","name":"Bash","input":{"command":"make toolu_applied"}},` +
			`{"type":"tool_use","id":"toolu_refused","name":"Bash","input":{"command":"make toolu_refused"}},` +
			`{"type":"tool_use","id":"toolu_pending","name":"Bash","input":{"command":"make toolu_pending"}}],` +
			`"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":20000,"output_tokens":5}}}`,
		result("toolu_applied", views["toolu_applied"], view.Stdout),
		result("toolu_refused", original, originals["toolu_refused"]),
		// toolu_pending's result is not written yet.
	}
	if err := os.WriteFile(p.path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var list struct{ Entries []ctxkeep.Entry }
	if r := s.run(false, "", "list", "--session", p.id, "--json"); json.Unmarshal([]byte(r.stdout), &list) != nil || len(list.Entries) != 3 {
		t.Fatalf("list: %+v", r)
	}
	for _, e := range list.Entries {
		if e.ToolUseID == "toolu_applied" {
			p.applied = e
		}
	}
	p.keptTokens = int64(p.applied.Chars-p.applied.ViewChars) / 4
	if p.keptTokens < 1000 {
		t.Fatalf("the applied output keeps out only %d tokens: %+v", p.keptTokens, p.applied)
	}
	return p
}

// post feeds the hook a PostToolUse event of the session with a large Bash
// output, and returns the replacement it answered with and the original.
func (p *proofSession) post(id string) (json.RawMessage, string) {
	p.s.t.Helper()
	var out strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&out, "%s line %d ... ok\n", id, i)
	}
	ev, _ := json.Marshal(map[string]any{
		"session_id": p.id, "cwd": "/p", "hook_event_name": "PostToolUse", "transcript_path": p.path,
		"tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": "make " + id},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false},
	})
	r := p.s.run(false, string(ev), "hook")
	var reply struct {
		Specific struct {
			UpdatedToolOutput json.RawMessage `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal([]byte(r.stdout), &reply) != nil || len(reply.Specific.UpdatedToolOutput) == 0 {
		p.s.t.Fatalf("the hook did not swap the output: %+v", r)
	}
	return reply.Specific.UpdatedToolOutput, out.String()
}

// stop runs the session's Stop hook: the proof of effect.
func (p *proofSession) stop() {
	p.s.t.Helper()
	ev, _ := json.Marshal(map[string]any{"session_id": p.id, "cwd": "/p", "hook_event_name": "Stop", "transcript_path": p.path})
	if r := p.s.run(false, string(ev), "hook"); r.code != 0 {
		p.s.t.Fatalf("Stop: %+v", r)
	}
}

// The statusline counts as kept out only what the transcript shows kept
// out, and names the rest: before the proof ran (it reads the verdicts
// stored at the end of a turn, never the transcript), nothing is counted;
// after it, the applied one, with one unchecked and one not applied.
func TestStatuslineClaimsAgreeWithProof(t *testing.T) {
	p := newProofSession(t)
	status := func() string {
		in, _ := json.Marshal(map[string]any{"session_id": p.id, "transcript_path": p.path})
		r := p.s.run(false, string(in), "statusline", "--plain")
		return r.stdout
	}
	if got := status(); !strings.Contains(got, "kept out 0 (3 unchecked)") {
		t.Errorf("before the proof: %q", got)
	}
	p.stop()
	want := fmt.Sprintf("kept out ~%s (1; 1 unchecked, 1 not applied)", watch.Short(p.keptTokens))
	if got := status(); !strings.Contains(got, want) {
		t.Errorf("after the proof: %q, want %q", got, want)
	}
}

// stats and doctor count as kept out the applied replacement only, the
// one the transcript holds, and name the others.
func TestStatsAndDoctorClaimsAgreeWithProof(t *testing.T) {
	p := newProofSession(t)
	// No Stop ran: stats checks the replacements waiting itself.
	var doc statsReport
	r := p.s.run(false, "", "stats", "--session", p.id[:8], "--json")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Sessions) != 1 || doc.Sessions[0].Swap == nil {
		t.Fatalf("stats --json: %v\n%+v", err, r)
	}
	sw := doc.Sessions[0].Swap
	if sw.Entries != 3 || sw.Applied != 1 || sw.NotApplied != 1 || sw.Unchecked != 1 || sw.Printed != 0 ||
		sw.KeptOut() != 1 || sw.KeptOutChars != int64(p.applied.Chars-p.applied.ViewChars) {
		t.Errorf("stats: %+v; want 1 applied (%d characters kept out), 1 not applied, 1 unchecked", sw.Proof, p.applied.Chars-p.applied.ViewChars)
	}
	tokens := watch.Thousands((int64(p.applied.Chars-p.applied.ViewChars) + 3) / 4)
	text := p.s.run(false, "", "stats", "--session", p.id[:8]).stdout
	for _, want := range []string{
		"kept out of the context, as the transcript shows: 1 output, ~" + tokens + " tokens",
		"1 more replaced, not checked yet", "1 replacement(s) not applied",
		"1 replacement(s) applied, 1 not applied, 1 not checked yet",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("stats --session lacks %q:\n%s", want, text)
		}
	}
	list := p.s.run(false, "", "stats").stdout
	if !strings.Contains(list, "1 (1 unchecked, 1 not applied)") {
		t.Errorf("stats lists the session without what the transcript shows:\n%s", list)
	}
	doctor := p.s.run(false, "", "doctor").stdout
	if !strings.Contains(doctor, "1 applied, 1 not applied, 1 not checked yet; kept out of the context, as the transcripts show: 1 output, ~"+tokens+" tokens") {
		t.Errorf("doctor:\n%s", doctor)
	}
}

// context counts as kept out, in its text, its --json and its page, the
// replacement the transcript holds, and names the others.
func TestContextClaimsAgreeWithProof(t *testing.T) {
	p := newProofSession(t)
	var doc struct {
		Kept struct {
			Entries, NotApplied, Unchecked int
			Tokens                         int64
		} `json:"kept"`
		Timeline struct {
			Points []struct{ Saved int64 }
			Swaps  []struct{ Status string }
		}
	}
	r := p.s.run(false, "", "context", p.id, "--json")
	if err := json.Unmarshal([]byte(strings.ReplaceAll(r.stdout, "not_applied", "notapplied")), &doc); err != nil {
		t.Fatalf("context --json: %v\n%+v", err, r)
	}
	k := doc.Kept
	if k.Entries != 1 || k.Tokens != p.keptTokens || k.Unchecked != 1 {
		t.Errorf("context --json kept %+v; want 1 output, %d tokens, 1 unchecked", k, p.keptTokens)
	}
	if !strings.Contains(r.stdout, `"not_applied": 1`) && !strings.Contains(r.stdout, `"not_applied":1`) {
		t.Errorf("context --json does not name the replacement not applied:\n%s", r.stdout)
	}
	if n := len(doc.Timeline.Points); n == 0 || doc.Timeline.Points[n-1].Saved != p.keptTokens {
		t.Errorf("the timeline's savings %+v; want %d", doc.Timeline.Points, p.keptTokens)
	}
	text := p.s.run(false, "", "context", p.id).stdout
	want := "ctxkeep kept 1 output(s) out of this session's context, as the transcript shows: ~" + watch.Thousands(p.keptTokens) + " tokens; 1 more replaced, not checked yet"
	if !strings.Contains(text, want) || !strings.Contains(text, "1 replacement(s) not applied") {
		t.Errorf("context lacks %q and the replacement not applied:\n%s", want, text)
	}
	page := filepath.Join(p.s.home, "context.html")
	p.s.run(false, "", "context", p.id, "--html", page)
	html, _ := os.ReadFile(page)
	if !strings.Contains(string(html), "kept out by ctxkeep (1 outputs; 1 not checked yet; 1 not applied)") {
		t.Errorf("the page does not say what the transcript shows")
	}
}

// replay counts from its stored original only the output whose
// replacement the transcript holds; the one the client did not apply
// counts as the transcript holds it.
func TestReplayClaimsAgreeWithProof(t *testing.T) {
	p := newProofSession(t)
	var doc struct {
		Replaced   int `json:"replaced_when_recorded"`
		NotApplied int `json:"not_applied_when_recorded"`
		Total      struct {
			CharsBefore int `json:"chars_before"`
		}
	}
	r := p.s.run(false, "", "replay", p.path, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("replay --json: %v\n%+v", err, r)
	}
	if doc.Replaced != 1 || doc.NotApplied != 1 {
		t.Errorf("replay: %d replaced, %d not applied; want 1 and 1\n%s", doc.Replaced, doc.NotApplied, r.stdout)
	}
	if text := p.s.run(false, "", "replay", p.path).stdout; !strings.Contains(text, "1 replacement ctxkeep returned when the session ran the client did not apply") {
		t.Errorf("replay:\n%s", text)
	}
}
