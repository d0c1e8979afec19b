package breakdown

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/transcript"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

func records(t *testing.T, lines ...string) []transcript.Record {
	t.Helper()
	var recs []transcript.Record
	for i, l := range lines {
		r, err := transcript.ParseLine([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		r.Line = i + 1
		recs = append(recs, r)
	}
	return recs
}

func use(id, msg, tool, input string, total int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":"a-%s","message":{"id":%q,"model":"m","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}],"usage":{"input_tokens":%d,"output_tokens":0}}}`,
		id, msg, id, tool, input, total)
}

func result(id, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":"r-%s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q}]}}`, id, id, text)
}

// TestStale covers each rule of Stale: a rerun of the same call, a read of
// a file changed later, a duplicate read, and calls that are not stale.
func TestStale(t *testing.T) {
	recs := records(t,
		`{"type":"user","uuid":"p","message":{"role":"user","content":"go"}}`,
		use("r1", "m1", "Read", `{"file_path":"/a.go"}`, 100), result("r1", "package a // old"),
		use("r2", "m2", "Read", `{"file_path":"/b.go"}`, 200), result("r2", "package b"),
		use("b1", "m3", "Bash", `{"command":"go test ./...","description":"run"}`, 300), result("b1", "FAIL"),
		use("e1", "m4", "Edit", `{"file_path":"/a.go","old_string":"old","new_string":"new"}`, 400), result("e1", "ok"),
		use("b2", "m5", "Bash", `{"command":"go test ./...","description":"again"}`, 500), result("b2", "ok"),
		use("r3", "m6", "Read", `{"file_path":"/b.go"}`, 600), result("r3", "package b"),
		use("g1", "m7", "Grep", `{"pattern":"x","path":"/"}`, 700), result("g1", "none"),
	)
	r, err := Build(Input{Records: recs, Counter: byteCounter{}, Limits: func(string, int64) watch.Limits { return watch.Compute(200_000, watch.ClientEnv{}) }})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Stale
	slices.Sort(s.StaleCalls)
	if want := []string{"b1", "r1", "r2"}; !slices.Equal(s.StaleCalls, want) {
		t.Errorf("stale %v, want %v", s.StaleCalls, want)
	}
	if s.Reruns != 2 || s.Outdated != 1 || s.DupReads != 1 || s.DupTokens != int64(len("package b")) {
		t.Errorf("%+v", s)
	}
	wantTokens := int64(len("package a // old") + len("package b") + len("FAIL"))
	if s.Tokens != wantTokens {
		t.Errorf("stale tokens %d, want %d", s.Tokens, wantTokens)
	}
	if len(r.Timeline.Points) != 7 || r.Tokens != 700 {
		t.Errorf("%d points, %d tokens", len(r.Timeline.Points), r.Tokens)
	}
	if p := r.Prediction; p.Over != 6 || p.PerResponse != 100 || p.Responses != 1663 {
		t.Errorf("prediction %+v", p)
	}
}

// TestEstimateBeforeUsage: with no usage recorded, the context is the
// tokenizer count with the client's 4/3 margin, and says so.
func TestEstimateBeforeUsage(t *testing.T) {
	recs := records(t, `{"type":"user","uuid":"p","message":{"role":"user","content":"123456"}}`)
	r, err := Build(Input{Records: recs, Counter: byteCounter{}, Limits: func(string, int64) watch.Limits { return watch.Compute(200_000, watch.ClientEnv{}) }})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Estimated || r.Tokens != 8 {
		t.Errorf("tokens %d, estimated %v; want 8 (6 × 4/3)", r.Tokens, r.Estimated)
	}
	var b bytes.Buffer
	WriteText(&b, r, 80)
	if !strings.Contains(b.String(), "~8 (estimate") {
		t.Errorf("the estimate is not labelled:\n%s", b.String())
	}
}

// TestSwapsOnTimeline: a swap is placed at the response that made the
// call, adds to what the context would have been when the transcript
// shows it was kept out (not when the client did not apply it), and is
// forgotten at a compaction.
func TestSwapsOnTimeline(t *testing.T) {
	recs := records(t,
		use("t1", "m1", "Bash", `{"command":"make"}`, 1000), result("t1", "view"),
		use("t2", "m2", "Bash", `{"command":"ls"}`, 2000), result("t2", "x"),
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":2000,"postTokens":300}}`,
		use("t3", "m3", "Bash", `{"command":"ls"}`, 500), result("t3", "x"),
	)
	tl := BuildTimeline(recs, []Swap{{ID: "e1", ToolUseID: "t1", Tool: "Bash", Tokens: 5000, Status: Applied},
		{ID: "e2", ToolUseID: "elsewhere", Tokens: 9, Status: Applied}, {ID: "e3", ToolUseID: "t2", Tool: "Bash", Tokens: 700, Status: NotApplied}})
	if len(tl.Swaps) != 2 || tl.Swaps[0].At != 1 || tl.Swaps[1].At != 2 {
		t.Fatalf("swaps %+v", tl.Swaps)
	}
	saved := []int64{tl.Points[0].Saved, tl.Points[1].Saved, tl.Points[2].Saved}
	if !slices.Equal(saved, []int64{5000, 5000, 0}) {
		t.Errorf("saved %v", saved)
	}
	if c := tl.Compactions; len(c) != 1 || c[0].After != 2 || c[0].Line != 5 || c[0].PostTokens != 300 {
		t.Errorf("compactions %+v", c)
	}
	if !strings.Contains(Chart(tl, watch.Compute(200_000, watch.ClientEnv{}), 40, 6), "◆ ▲") {
		t.Errorf("chart marks:\n%s", Chart(tl, watch.Compute(200_000, watch.ClientEnv{}), 40, 6))
	}
}

// TestHTMLEscapes: text from a transcript cannot inject markup into the
// page.
func TestHTMLEscapes(t *testing.T) {
	recs := records(t,
		use("t1", "m1", "<script>alert(1)</script>", `{}`, 1000), result("t1", "x"),
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"<img src=x onerror=alert(2)>","preTokens":1000}}`,
	)
	r, err := Build(Input{Session: `"><svg onload=alert(3)>`, Transcript: "</script><script>alert(4)</script>", Records: recs, Counter: byteCounter{},
		Swaps:  []Swap{{ID: "<b onmouseover=5>", ToolUseID: "t1", Tool: "<i onclick=6>", Tokens: 10}},
		Limits: func(string, int64) watch.Limits { return watch.Compute(200_000, watch.ClientEnv{}) }})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "<svg onload", "<b onmouseover", "<i onclick"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("the page contains %q unescaped", bad)
		}
	}
}

func FuzzCategorize(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"image"}]}]}}`))
	f.Add([]byte(`{"type":"attachment","attachment":{"type":"hook_additional_context"},"rendered":[{"content":"hi"}]}`))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"x","name":"Read","input":{"file_path":1}}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := transcript.ParseLine(line)
		if err != nil && rec.Type == "" {
			return
		}
		recs := []transcript.Record{rec, rec}
		cats, _ := Categorize(recs, byteCounter{})
		for _, c := range cats {
			if c.Tokens < 0 || c.Chars < 0 || c.Items <= 0 {
				t.Fatalf("%+v", c)
			}
		}
		findStale(liveCalls(recs), nil)
	})
}
