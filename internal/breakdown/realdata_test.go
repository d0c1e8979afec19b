package breakdown

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

var spotterFiles = realdata.SpotterAll

// byteCounter counts one token per byte: exact and independent of any
// tokenizer, so that token figures can be checked too.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }

func report(t testing.TB, file string, c Counter) *Report {
	t.Helper()
	f, err := transcript.ReadFile(file, transcript.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(Input{Session: filepath.Base(file), Transcript: file, Records: f.Records, Counter: c,
		Limits: func(string, int64) watch.Limits { return watch.Compute(200_000, watch.ClientEnv{}) }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// raw is what the test reads itself from a transcript, decoding each line
// as a generic map: the context now (§8.3), the characters of each
// category in what the model is sent since the last compaction, and where
// the compactions are.
type raw struct {
	tokens     int64
	chars      map[string]int64
	images     int
	boundaries []int // line numbers
	before     []int // distinct main-thread responses before each boundary
}

func readRaw(t *testing.T, file string) raw {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var maps []map[string]any
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		maps = append(maps, m)
	}
	r := raw{chars: map[string]int64{}}
	start := 0
	responses := map[string]bool{}
	tools := map[string]string{}
	for i, m := range maps {
		main := m["isSidechain"] != true && m["agentId"] == nil
		if !main {
			continue
		}
		msg, _ := m["message"].(map[string]any)
		switch {
		case m["type"] == "system" && m["subtype"] == "compact_boundary":
			r.boundaries = append(r.boundaries, i+1)
			r.before = append(r.before, len(responses))
			start = i
			post, _ := m["compactMetadata"].(map[string]any)["postTokens"].(float64)
			r.tokens = int64(post)
		case m["type"] == "assistant" && msg["model"] != "<synthetic>":
			responses[msg["id"].(string)] = true
			u := msg["usage"].(map[string]any)
			r.tokens = int64(u["input_tokens"].(float64) + u["cache_creation_input_tokens"].(float64) +
				u["cache_read_input_tokens"].(float64) + u["output_tokens"].(float64))
		}
		if content, ok := msg["content"].([]any); ok && m["type"] == "assistant" {
			for _, b := range content {
				if b := b.(map[string]any); b["type"] == "tool_use" {
					tools[b["id"].(string)] = b["name"].(string)
				}
			}
		}
	}
	for _, m := range maps[start:] {
		if m["isSidechain"] == true || m["agentId"] != nil {
			continue
		}
		r.count(m)
	}
	return r
}

// count adds a record's characters to its categories (see Categorize).
func (r *raw) count(m map[string]any) {
	msg, _ := m["message"].(map[string]any)
	if msg == nil || (m["type"] != "user" && m["type"] != "assistant") || msg["model"] == "<synthetic>" {
		return
	}
	runes := func(s any) int64 { str, _ := s.(string); return int64(utf8.RuneCountInString(str)) }
	name := User
	switch {
	case m["type"] == "assistant":
		name = Assistant
	case m["isCompactSummary"] == true:
		name = Summary
	case m["isMeta"] == true:
		name = Injected
	}
	if s, ok := msg["content"].(string); ok {
		r.chars[name] += runes(s)
		return
	}
	blocks, _ := msg["content"].([]any)
	for _, b := range blocks {
		b := b.(map[string]any)
		switch b["type"] {
		case "text":
			r.chars[name] += runes(b["text"])
		case "thinking":
			r.chars[Thinking] += runes(b["thinking"])
		case "tool_use":
			r.chars[ToolUse] += runes(b["name"]) // the input is compared as written, below
		case "image":
			r.images++
		case "tool_result":
			switch c := b["content"].(type) {
			case string:
				r.chars[ToolResult] += runes(c)
			case []any:
				for _, inner := range c {
					inner := inner.(map[string]any)
					if inner["type"] == "text" {
						r.chars[ToolResult] += runes(inner["text"])
					} else if inner["type"] == "image" {
						r.images++
					}
				}
			}
		}
	}
}

// TestReportOnRealSessions checks the report of every spotter session
// against figures the test reads from the raw lines: the exact context
// now, the characters of every category in what the model is sent, and
// the compaction points on the timeline.
func TestReportOnRealSessions(t *testing.T) {
	for _, file := range spotterFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			want := readRaw(t, file)
			r := report(t, file, byteCounter{})
			if r.Tokens != want.tokens || r.Estimated {
				t.Errorf("context %d (estimated %v), want %d", r.Tokens, r.Estimated, want.tokens)
			}
			got := map[string]int64{}
			images := 0
			for _, c := range r.Categories {
				got[c.Name] += c.Chars
				if c.Name == Image {
					images += c.Items
				}
				if c.Name != Image && c.Name != ToolUse && c.Tokens != 0 && c.Tokens < c.Chars {
					t.Errorf("%s/%s: %d tokens of one byte each for %d characters", c.Name, c.Tool, c.Tokens, c.Chars)
				}
			}
			for _, name := range []string{User, Assistant, Thinking, ToolResult, Summary, Injected} {
				if got[name] != want.chars[name] {
					t.Errorf("%s: %d characters, want %d", name, got[name], want.chars[name])
				}
			}
			if got[ToolUse] < want.chars[ToolUse] {
				t.Errorf("tool requests: %d characters, fewer than their names alone (%d)", got[ToolUse], want.chars[ToolUse])
			}
			if images != want.images {
				t.Errorf("images: %d, want %d", images, want.images)
			}

			tl := r.Timeline
			if len(tl.Compactions) != len(want.boundaries) {
				t.Fatalf("%d compactions, want %d", len(tl.Compactions), len(want.boundaries))
			}
			for i, c := range tl.Compactions {
				if c.Line != want.boundaries[i] || c.After != want.before[i] {
					t.Errorf("compaction %d at line %d after %d responses, want line %d after %d",
						i, c.Line, c.After, want.boundaries[i], want.before[i])
				}
				if c.After < len(tl.Points) && tl.Points[c.After].Cycle != i+1 {
					t.Errorf("the response after compaction %d is in cycle %d", i, tl.Points[c.After].Cycle)
				}
			}
			if n := len(tl.Points); n > 0 && tl.Points[n-1].Tokens != want.tokens && !r.Usage.Compacted {
				t.Errorf("the last point is %d tokens, want %d", tl.Points[n-1].Tokens, want.tokens)
			}
		})
	}
}

// TestToolUseTokensOnRealSessions: a tool request counts its name and its
// input as written in the transcript.
func TestToolUseTokensOnRealSessions(t *testing.T) {
	file := spotterFiles(t)[0]
	f, _ := transcript.ReadFile(file, transcript.Cursor{})
	live, _ := transcript.Live(f.Records)
	var want int64
	for _, r := range live {
		if r.Type == transcript.TypeAssistant && r.Message != nil {
			for _, b := range r.Message.Content.Blocks {
				if b.Type == transcript.BlockToolUse {
					want += int64(len(b.Name) + len(b.Input))
				}
			}
		}
	}
	cats, _ := Categorize(live, byteCounter{})
	var got int64
	for _, c := range cats {
		if c.Name == ToolUse {
			got += c.Tokens
		}
	}
	if got != want || want == 0 {
		t.Errorf("tool requests: %d, want %d", got, want)
	}
}

// large-conversation.jsonl reaches 535k tokens and never compacts: a
// session of a 1M window. The report takes that window, says it was
// inferred, and does not claim the next request compacts.
func TestLargeWindowInferred(t *testing.T) {
	path := realdata.Path("cc-sessions-obra/large-conversation.jsonl")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("real data missing under CI: %v", err)
		}
		t.Skipf("real data missing: %v", err)
	}
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(config.Files{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(Input{Session: "large", Transcript: path, Records: f.Records, Counter: byteCounter{},
		Limits: func(model string, peak int64) watch.Limits {
			return watch.LimitsFor(cfg, model, 0, peak, watch.ClientEnv{})
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Limits.Window != 1_000_000 || !r.Limits.Inferred || r.Limits.Configured != 200_000 {
		t.Errorf("limits %+v, want a 1M window inferred from the configured 200k", r.Limits)
	}
	if r.Limits.OfWindow(r.Tokens) > 100 || r.Prediction.TokensLeft <= 0 {
		t.Errorf("%d tokens: %.0f%% of the window, %d left before compaction", r.Tokens, r.Limits.OfWindow(r.Tokens), r.Prediction.TokensLeft)
	}
	var b bytes.Buffer
	WriteText(&b, r, 100)
	if !strings.Contains(b.String(), "window inferred") || strings.Contains(b.String(), "the next request compacts") {
		t.Errorf("text report:\n%s", b.String())
	}
}
