package purge

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// plan parses data and plans its purge.
func plan(t *testing.T, data []byte, opt Options) (*Plan, []byte) {
	t.Helper()
	tr := Parse(data)
	tr.SessionID = testSession
	p := tr.Plan(opt)
	out, err := p.Render()
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

// wellFormed checks what the client needs to load a transcript whole:
// every line a JSON object, every parentUuid naming a record, every tool
// call of the conversation answered and every answer to a call of it.
func wellFormed(t *testing.T, data []byte) []transcript.Record {
	t.Helper()
	tr := Parse(data)
	uuids := map[string]bool{}
	for i, l := range tr.Lines {
		if !l.Valid || l.Torn {
			t.Fatalf("line %d is not a whole JSON object: %q", i+1, l.Raw)
		}
		if u := l.Rec.UUID; u != "" {
			if uuids[u] {
				t.Fatalf("line %d: uuid %s twice", i+1, u)
			}
			uuids[u] = true
		}
	}
	recs := tr.records()
	for _, r := range recs {
		if r.ParentUUID != "" && !uuids[r.ParentUUID] {
			t.Fatalf("line %d: parentUuid %s names no record", r.Line, r.ParentUUID)
		}
	}
	live, _ := transcript.Live(recs)
	calls, orphans := transcript.ToolCalls(live)
	for _, c := range calls {
		if c.Result == nil {
			t.Fatalf("tool call %s has no result", c.ID)
		}
	}
	if len(orphans) > 0 {
		t.Fatalf("results without calls: %v", orphans[0].ToolUseID)
	}
	return recs
}

func kinds(rs []Repair) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Kind)
	}
	return out
}

// Nothing to do: the file comes back byte for byte, and Changes says so.
func TestCleanTranscriptIsUntouched(t *testing.T) {
	b := session("small result")
	// Odd spacing, escapes and key order the client might write one day.
	b.lines = append(b.lines, ` {"type":"system","subtype":"informational","content":"caf\u00e9 <b>","uuid":"u-x","parentUuid":null, "zeta":1.50}`)
	data := b.bytes()
	p, out := plan(t, data, Options{KeepThinking: true})
	if p.Changes() || !bytes.Equal(out, data) {
		t.Fatalf("changes %t; out differs: %s", p.Changes(), out)
	}
}

// Purging keeps every line it does not change byte for byte, and what it
// changes stays whole: the chain, the calls and their results.
func TestSlimKeepsOtherLinesByteForByte(t *testing.T) {
	data := session(bigFailure()).bytes()
	p, out := plan(t, data, Options{})
	wellFormed(t, out)
	in, got := strings.Split(string(data), "\n"), strings.Split(string(out), "\n")
	changed := 0
	for _, l := range got {
		if !slices.Contains(in, l) {
			changed++
		}
	}
	// The stubbed result, and the two lines whose thinking parent went.
	if len(p.Stubs) != 1 || changed != 3 {
		t.Fatalf("%d stubs, %d lines changed:\n%s", len(p.Stubs), changed, out)
	}
	if p.Thinking.Removed != 2 || p.Thinking.Kept != 1 {
		t.Fatalf("thinking = %+v", p.Thinking)
	}
	// The last turn keeps its thinking, byte for byte (signature and all).
	if !strings.Contains(string(out), `{"signature":"sig-msg_3-Zm9v+/=","thinking":"Look at x.go.","type":"thinking"}`) {
		t.Fatalf("the last turn's thinking is gone or altered:\n%s", out)
	}
	if strings.Contains(string(out), "I should run them.") || strings.Contains(string(out), "=== RUN   TestCase300") {
		t.Fatal("slimmed content is still there")
	}
	// Again: nothing left to do.
	if p2, out2 := plan(t, out, Options{}); p2.Changes() || !bytes.Equal(out2, out) {
		t.Fatalf("a second purge changes %v", kinds(p2.Repairs))
	}
}

func TestStub(t *testing.T) {
	big := bigFailure()
	p, out := plan(t, session(big).bytes(), Options{Threshold: 5000})
	s := p.Stubs[0]
	if s.ToolUseID != "toolu_a" || s.Tool != "Bash" || s.Input != "go test ./..." || s.Exit != 1 ||
		s.Bytes != len(big) || s.Lines != 402 || s.Failures == 0 || s.Hash != ctxkeep.Sum([]byte(big)) || s.ID != EntryID(testSession, "toolu_a") {
		t.Fatalf("stub = %+v", s)
	}
	text := s.Text()
	for _, want := range []string{"id: " + s.ID, "sha256 " + string(s.Hash), "size: " + strconv.Itoa(len(big)) + " bytes, 402 lines",
		"exit status: 1", "pinned: soft", "call: Bash `go test ./...`", "ctxkeep show " + s.ID} {
		if !strings.Contains(text, want) {
			t.Errorf("stub lacks %q:\n%s", want, text)
		}
	}
	// The model's result and the structured one both hold the stub.
	var rec struct {
		Message struct {
			Content []struct {
				Content string `json:"content"`
				IsError bool   `json:"is_error"`
			} `json:"content"`
		} `json:"message"`
		ToolUseResult string `json:"toolUseResult"`
	}
	line := lineWith(t, out, `"tool_use_id":"toolu_a"`)
	if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Message.Content[0].Content != text ||
		!rec.Message.Content[0].IsError || rec.ToolUseResult != text {
		t.Fatalf("stubbed line: %v\n%s", err, line)
	}
	// Below the threshold, and anything not text, is left alone.
	if p, _ := plan(t, session(big).bytes(), Options{Threshold: len(big)}); len(p.Stubs) != 0 {
		t.Fatal("a result at the threshold was stubbed")
	}
	image := []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "data": strings.Repeat("A", 9000)}}}
	b := newBuilder()
	b.prompt("look")
	b.toolUse("m1", "toolu_img", "Read", map[string]any{"file_path": "/p/a.png"})
	b.result("toolu_img", image, false)
	if p, _ := plan(t, b.bytes(), Options{}); len(p.Stubs) != 0 {
		t.Fatal("an image result was stubbed")
	}
}

func TestRepairs(t *testing.T) {
	cases := []struct {
		name  string
		build func() []byte
		want  []string
	}{
		{"torn last line", func() []byte {
			d := session("x").bytes()
			return append(d, `{"type":"assistant","uuid":"u-torn","message":{"content":[{"type":"te`...)
		}, []string{TornLine}},
		{"last line without newline", func() []byte {
			return bytes.TrimSuffix(session("x").bytes(), []byte("\n"))
		}, []string{Unterminated}},
		{"garbled line in the middle", func() []byte {
			b := session("x")
			b.lines = slices.Insert(b.lines, 3, `{"type":"progress","data":{"ty`)
			return b.bytes()
		}, []string{InvalidLine}},
		{"broken parent chain", func() []byte {
			b := session("x")
			b.lines[8] = strings.Replace(b.lines[8], `"parentUuid":"00000000-0000-4000-8000-000000000008"`, `"parentUuid":"11111111-2222-4333-8444-555555555555"`, 1)
			return b.bytes()
		}, []string{BrokenParent}},
		{"tool_use without result, mid-session", func() []byte {
			b := session("x")
			b.lines = slices.Delete(b.lines, 5, 6) // the result of toolu_a
			b.lines[5] = strings.Replace(b.lines[5], "000000000006", "000000000005", 1)
			return b.bytes()
		}, []string{MissingResult}},
		{"tool_use without result, at the end", func() []byte {
			b := session("x")
			b.prompt("deploy")
			b.toolUse("msg_9", "toolu_z", "Bash", map[string]any{"command": "make deploy"})
			return b.bytes()
		}, []string{MissingResult}},
		{"orphan tool_result", func() []byte {
			b := session("x")
			b.lines[11] = strings.Replace(b.lines[11], `"tool_use_id":"toolu_b"`, `"tool_use_id":"toolu_gone"`, 1)
			b.lines = slices.Insert(b.lines, 12, strings.Replace(b.lines[11], "toolu_gone", "toolu_b", 1))
			b.lines[12] = strings.Replace(b.lines[12], "000000000012", "000000000099", 1)
			return b.bytes()
		}, []string{OrphanResult}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.build()
			p, out := plan(t, data, Options{RepairOnly: true})
			if got := kinds(p.Repairs); !slices.Equal(got, c.want) {
				t.Fatalf("repairs = %v, want %v", p.Repairs, c.want)
			}
			wellFormed(t, out)
			if p2, _ := plan(t, out, Options{RepairOnly: true}); len(p2.Repairs) != 0 {
				t.Fatalf("repairs again: %v", p2.Repairs)
			}
		})
	}
}

// A missing result is answered where the client looks for it: the child of
// the line holding the call, an error saying what happened.
func TestSyntheticResult(t *testing.T) {
	b := session("x")
	b.prompt("deploy")
	use := b.toolUse("msg_9", "toolu_z", "Bash", map[string]any{"command": "make deploy"})
	_, out := plan(t, b.bytes(), Options{RepairOnly: true})
	var rec struct {
		ParentUUID    string `json:"parentUuid"`
		Type          string `json:"type"`
		SessionID     string `json:"sessionId"`
		Cwd           string `json:"cwd"`
		Timestamp     string `json:"timestamp"`
		SourceToolUse string `json:"sourceToolAssistantUUID"`
		Message       struct {
			Content []transcript.Block `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(lineWith(t, out, `"tool_use_id":"toolu_z"`)), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ParentUUID != use || rec.SourceToolUse != use || rec.Type != "user" || rec.SessionID != testSession || rec.Cwd != "/p" ||
		rec.Timestamp == "" || !rec.Message.Content[0].IsError || rec.Message.Content[0].Content.String != MissingResultText {
		t.Fatalf("synthetic result = %+v", rec)
	}
	// The same on every run: a dry run shows what the run writes.
	if _, again := plan(t, b.bytes(), Options{RepairOnly: true}); !bytes.Equal(again, out) {
		t.Fatal("two plans of one transcript differ")
	}
}

// A response with nothing but thinking keeps it (removing it would leave
// an empty turn); a line other records name (a compaction's preserved
// segment) is never dropped.
func TestThinkingKeptWhereNeeded(t *testing.T) {
	b := newBuilder()
	b.prompt("think")
	only := b.thinking("msg_1", "Nothing to say.")
	b.prompt("again")
	named := b.thinking("msg_2", "Named by the boundary.")
	b.text("msg_2", "Done.")
	b.add(map[string]any{"type": "system", "subtype": "compact_boundary", "parentUuid": nil, "logicalParentUuid": named,
		"compactMetadata": map[string]any{"trigger": "manual", "preservedSegment": map[string]any{"headUuid": named, "anchorUuid": "x", "tailUuid": named}}})
	b.prompt("after")
	b.text("msg_3", "ok")
	p, out := plan(t, b.bytes(), Options{})
	if !strings.Contains(string(out), only) || !strings.Contains(string(out), `"uuid":"`+named+`"`) {
		t.Fatalf("a needed thinking line went:\n%s", out)
	}
	if p.Thinking.Removed != 0 || p.Thinking.Kept != 2 {
		t.Fatalf("thinking = %+v", p.Thinking)
	}
}

func lineWith(t *testing.T, data []byte, s string) string {
	t.Helper()
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line with %s", s)
	return ""
}

// A file none of whose lines is a transcript record is refused: "repairing"
// it would drop every line (a random binary file came out as 3 bytes).
func TestReadRefusesWhatIsNotATranscript(t *testing.T) {
	dir := t.TempDir()
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(i*7919 + i/13)
	}
	for name, data := range map[string][]byte{
		"x.jsonl":     junk,
		"notes.txt":   []byte("some notes\nmore notes\n"),
		"objects.log": []byte("{\"level\":1}\n[1,2]\n"),
		"empty.jsonl": nil,
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o600)
		if _, err := Read(path); !errors.Is(err, ErrNotTranscript) {
			t.Errorf("Read(%s) = %v, want ErrNotTranscript", name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != string(data) {
			t.Errorf("%s changed", name)
		}
	}
}
