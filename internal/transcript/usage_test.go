package transcript

import (
	"fmt"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

func response(uuid, id, model string, in, created, read, out int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"timestamp":"2026-11-21T10:00:00Z","message":{"id":%q,"model":%q,"content":[{"type":"text","text":"x"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}}}`,
		uuid, id, model, in, created, read, out)
}

func TestCurrentContext(t *testing.T) {
	post := func(n int) string {
		return fmt.Sprintf(`{"type":"system","subtype":"compact_boundary","timestamp":"2026-11-21T11:00:00Z","compactMetadata":{"trigger":"auto","preTokens":990521,"postTokens":%d}}`, n)
	}
	tests := []struct {
		name  string
		lines []string
		want  ctxkeep.Usage
	}{
		{"nothing yet", []string{userLine("u1", "hi")}, ctxkeep.Usage{}},
		{"last response", []string{response("a1", "m1", "opus", 1, 2, 3, 4), response("a2", "m2", "opus", 50, 200, 5300, 20)},
			ctxkeep.Usage{Tokens: 5570, InputTokens: 5550, Model: "opus", MessageID: "m2"}},
		{"a response's last line", []string{response("a1", "m1", "opus", 3, 8037, 17842, 10), resultLine("r1", "t1", "x"), response("a2", "m1", "opus", 3, 8037, 17842, 441)},
			ctxkeep.Usage{Tokens: 26323, InputTokens: 25882, Model: "opus", MessageID: "m1"}},
		{"subagents do not count", []string{response("a1", "m1", "opus", 1, 2, 3, 4), sidechain(response("x1", "m2", "haiku", 100, 100, 100, 100))},
			ctxkeep.Usage{Tokens: 10, InputTokens: 6, Model: "opus", MessageID: "m1"}},
		{"synthetic responses do not count", []string{response("a1", "m1", "opus", 1, 2, 3, 4), response("a2", "m2", SyntheticModel, 0, 0, 0, 0)},
			ctxkeep.Usage{Tokens: 10, InputTokens: 6, Model: "opus", MessageID: "m1"}},
		{"compacted, no response since", []string{response("a1", "m1", "opus", 1, 2, 900000, 4), post(2623), summary("s1")},
			ctxkeep.Usage{Tokens: 2623, InputTokens: 2623, Model: "opus", Compacted: true}},
		{"compacted without postTokens (2.1.39)", []string{response("a1", "m1", "opus", 1, 2, 900000, 4), post(0)},
			ctxkeep.Usage{Model: "opus", Compacted: true}},
		{"a response after the compaction", []string{response("a1", "m1", "opus", 1, 2, 900000, 4), post(2623), response("a2", "m2", "opus", 10, 20, 30, 40)},
			ctxkeep.Usage{Tokens: 100, InputTokens: 60, Model: "opus", MessageID: "m2"}},
		{"a subagent's compaction", []string{response("a1", "m1", "opus", 1, 2, 3, 4), sidechain(post(5))},
			ctxkeep.Usage{Tokens: 10, InputTokens: 6, Model: "opus", MessageID: "m1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CurrentContext(records(t, tt.lines...))
			got.Timestamp = time.Time{}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if got.Known() != (tt.want.Tokens > 0) {
				t.Errorf("Known = %v", got.Known())
			}
		})
	}
}

// TestContextUsageIncremental: a monitor that keeps the usage and the
// cursor, and reads only new lines, gets what a full read gets.
func TestContextUsageIncremental(t *testing.T) {
	recs := readFixture(t, "compact-preserved.jsonl")
	var u ctxkeep.Usage
	for i := range recs {
		UpdateUsage(&u, &recs[i])
		if recs[i].UUID == "s1" && (u.Tokens != 2623 || !u.Compacted || u.Model != "claude-opus-5-5") {
			t.Errorf("after the summary: %+v", u)
		}
	}
	want := ctxkeep.Usage{Tokens: 5570, InputTokens: 5550, Model: "claude-opus-5-5", MessageID: "msg_4",
		Timestamp: time.Date(2026, 11, 21, 10, 1, 20, 0, time.UTC)}
	if u != want || CurrentContext(recs) != want {
		t.Errorf("got %+v, want %+v", u, want)
	}
}
