package transcript

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// dataDir holds real public transcripts (shared/data/PROVENANCE.md §1–2).
const dataDir = "../../../shared/data"

// realFiles lists every real transcript: the spotter sessions (2.1.38 and
// 2.1.39, with their subagents) and the obra ones (1.0.x and 2.0.x).
func realFiles(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat(dataDir); err != nil {
		realdata.Missing(t, "real transcripts not found at %s (shared/data beside the repository): %v", dataDir, err)
	}
	var files []string
	for _, pattern := range []string{"cc-sessions-spotter/*.jsonl", "cc-sessions-spotter/*/subagents/*.jsonl", "cc-sessions-obra/*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(dataDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		realdata.Missing(t, "no transcripts under %s", dataDir)
	}
	return files
}

// longSessions are the five spotter sessions with one compaction each.
var longSessions = map[string]bool{
	"258c7280-ae70-4798-800f-63464d01a85d.jsonl": true,
	"4d5611e5-241a-462a-8d15-5122611a9569.jsonl": true,
	"8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": true,
	"ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl": true,
	"fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl": true,
}

// prompts is how many turns the user opened in each main transcript,
// counted by reading the files (see the rule on Turns): most long sessions
// run on one or two prompts and many task notifications.
var prompts = map[string]int{
	"258c7280-ae70-4798-800f-63464d01a85d.jsonl": 2,
	"4d5611e5-241a-462a-8d15-5122611a9569.jsonl": 2,
	"8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": 1,
	"ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl": 2,
	"fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl": 2,
	"short.jsonl":              1,
	"subagent.jsonl":           2, // one of them a prompt command, /handgemacht:create-beads
	"tool_heavy.jsonl":         2,
	"large-conversation.jsonl": 21,
	"long-conversation.jsonl":  15,
}

// naive holds figures computed the simplest way: each line decoded into a
// map, independently of the package.
type naive struct {
	lines      int
	types      map[string]int // "system/compact_boundary" for system records
	uses       int
	results    int
	paired     int
	mainUses   int
	responses  int      // distinct message ids
	boundaries []int    // line numbers
	summaries  []int    // line numbers of isCompactSummary records
	context    [2]int64 // with and without output
}

func count(t *testing.T, data []byte) naive {
	t.Helper()
	n := naive{types: map[string]int{}}
	uses := map[string]bool{}
	results := map[string]bool{}
	ids := map[string]bool{}
	var context [2]int64
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		n.lines++
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		typ, _ := m["type"].(string)
		if sub, ok := m["subtype"].(string); ok {
			typ += "/" + sub
		}
		n.types[typ]++
		main := m["isSidechain"] != true && m["agentId"] == nil
		msg, _ := m["message"].(map[string]any)
		switch {
		case typ == "system/compact_boundary":
			n.boundaries = append(n.boundaries, i+1)
			post, _ := m["compactMetadata"].(map[string]any)["postTokens"].(float64)
			context = [2]int64{int64(post), int64(post)}
		case m["isCompactSummary"] == true:
			n.summaries = append(n.summaries, i+1)
		case typ == "assistant":
			ids[msg["id"].(string)] = true
			if main {
				u := msg["usage"].(map[string]any)
				in := int64(u["input_tokens"].(float64) + u["cache_creation_input_tokens"].(float64) + u["cache_read_input_tokens"].(float64))
				context = [2]int64{in + int64(u["output_tokens"].(float64)), in}
			}
		}
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			b := b.(map[string]any)
			switch b["type"] {
			case "tool_use":
				n.uses++
				uses[b["id"].(string)] = true
				if main {
					n.mainUses++
				}
			case "tool_result":
				n.results++
				results[b["tool_use_id"].(string)] = true
			}
		}
	}
	for id := range results {
		if uses[id] {
			n.paired++
		}
	}
	n.responses = len(ids)
	n.context = context
	return n
}

func TestRealTranscripts(t *testing.T) {
	for _, path := range realFiles(t) {
		name, _ := filepath.Rel(dataDir, path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := count(t, data)
			f, err := ReadFile(path, Cursor{})
			if err != nil {
				t.Fatal(err)
			}
			checkRead(t, f, data, want)
			checkTools(t, f.Records, want)
			checkCompactions(t, filepath.Base(path), f.Records, want)
			checkContext(t, f.Records, want)
			checkTurns(t, filepath.Base(path), f.Records, want)
			t.Logf("lines %d, tool_uses %d (main %d), results %d, paired %d, responses %d, boundaries %v, summaries %v, context %d (input %d)",
				want.lines, want.uses, want.mainUses, want.results, want.paired, want.responses, want.boundaries, want.summaries, want.context[0], want.context[1])
		})
	}
}

func checkRead(t *testing.T, f *File, data []byte, want naive) {
	t.Helper()
	if len(f.Problems) > 0 {
		t.Errorf("problems on a valid file: %v", f.Problems)
	}
	if f.Next != (Cursor{Offset: int64(len(data)), Line: want.lines}) {
		t.Errorf("next = %+v, want the end: %d bytes, %d lines", f.Next, len(data), want.lines)
	}
	types := map[string]int{}
	var joined []byte
	for i, r := range f.Records {
		key := r.Type
		if r.Subtype != "" {
			key += "/" + r.Subtype
		}
		types[key]++
		if r.Line != i+1 || r.Offset != int64(len(joined)) {
			t.Fatalf("record %d at line %d, byte %d; want line %d, byte %d", i, r.Line, r.Offset, i+1, len(joined))
		}
		joined = append(append(joined, r.Raw...), '\n')
	}
	if !bytes.Equal(joined, data) {
		t.Error("Raw lines joined do not reproduce the file")
	}
	if !maps.Equal(types, want.types) {
		t.Errorf("records by type = %v, want %v", types, want.types)
	}
}

func checkTools(t *testing.T, recs []Record, want naive) {
	t.Helper()
	calls, orphans := ToolCalls(recs)
	paired := 0
	for _, c := range calls {
		if c.Result != nil {
			paired++
			if c.Result.ToolUseID != c.ID || c.Result.Record.Line <= c.Use.Line {
				t.Errorf("call %s paired with %s at line %d", c.ID, c.Result.ToolUseID, c.Result.Record.Line)
			}
		}
	}
	if len(calls) != want.uses || paired != want.paired || len(orphans) != want.results-want.paired {
		t.Errorf("calls %d, paired %d, orphans %d; want %d, %d, %d", len(calls), paired, len(orphans), want.uses, want.paired, want.results-want.paired)
	}
	resps := Responses(recs)
	if len(resps) != want.responses {
		t.Errorf("responses = %d, want %d", len(resps), want.responses)
	}
	for _, r := range resps {
		last := r.Records[len(r.Records)-1]
		if r.Usage != last.Message.Usage {
			t.Errorf("response %s: usage %+v, want its last line's %+v", r.ID, r.Usage, last.Message.Usage)
		}
	}
}

func checkCompactions(t *testing.T, name string, recs []Record, want naive) {
	t.Helper()
	comps := Compactions(recs)
	var lines []int
	for _, c := range comps {
		lines = append(lines, c.Boundary.Line)
	}
	if !slices.Equal(lines, want.boundaries) {
		t.Errorf("boundaries at %v, want %v", lines, want.boundaries)
	}
	if !longSessions[name] {
		return
	}
	if len(comps) != 1 || comps[0].Summary == nil || comps[0].Summary.Line != comps[0].Boundary.Line+1 {
		t.Fatalf("want one boundary followed by its summary, got %+v", comps)
	}
	live, err := Live(recs)
	if err != nil {
		t.Fatal(err)
	}
	if live[0].Line != comps[0].Boundary.Line || !live[1].IsCompactSummary {
		t.Errorf("live view starts at line %d (%s), want the boundary then the summary", live[0].Line, live[0].Type)
	}
	if turns := Turns(live); turns[0].Prompt != nil || !turns[0].Compacted {
		t.Errorf("live turns start with %+v, want the turn the compaction interrupted", turns[0])
	}
}

func checkContext(t *testing.T, recs []Record, want naive) {
	t.Helper()
	u := CurrentContext(recs)
	if !recs[len(recs)-1].MainThread() {
		if u != (ctxkeep.Usage{}) {
			t.Errorf("a subagent's usage counted: %+v", u)
		}
		return
	}
	if u.Tokens != want.context[0] || u.InputTokens != want.context[1] {
		t.Errorf("context = %d (input %d), want %d (%d)", u.Tokens, u.InputTokens, want.context[0], want.context[1])
	}
}

func checkTurns(t *testing.T, name string, recs []Record, want naive) {
	t.Helper()
	if !recs[len(recs)-1].MainThread() {
		return
	}
	turns := Turns(recs)
	opened, calls := 0, 0
	for _, turn := range turns {
		if turn.Prompt != nil {
			opened++
		}
		calls += len(turn.Calls)
	}
	if opened != prompts[name] || calls != want.mainUses {
		t.Errorf("%d turns opened with %d tool calls, want %d and %d", opened, calls, prompts[name], want.mainUses)
	}
}
