package hook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// read posts a PostToolUse for a Read of path (offset and limit as given)
// that returned content, and returns the content the model is to see: ""
// when the hook left the output alone.
func (f *swapFixture) read(id, path string, offset, limit int, content string, extra map[string]any) string {
	f.t.Helper()
	input := map[string]any{"file_path": path}
	if offset > 0 || limit > 0 {
		input["offset"], input["limit"] = offset, limit
	}
	ev := map[string]any{
		"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": input, "tool_use_id": id,
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": path, "content": content,
			"numLines": strings.Count(content, "\n"), "startLine": 1, "totalLines": strings.Count(content, "\n")}},
	}
	for k, v := range extra {
		ev[k] = v
	}
	payload, _ := json.Marshal(ev)
	out := f.run(payload, handlers)
	if out == "" {
		return ""
	}
	var reply struct {
		Specific struct {
			Updated struct {
				Type string `json:"type"`
				File struct {
					FilePath string `json:"filePath"`
					Content  string `json:"content"`
				} `json:"file"`
			} `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &reply); err != nil || reply.Specific.Updated.Type != "text" || reply.Specific.Updated.File.FilePath != path {
		f.t.Fatalf("reply %q: %v", out, err)
	}
	return reply.Specific.Updated.File.Content
}

func (f *swapFixture) event(name string, fields map[string]any) {
	f.t.Helper()
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": name}
	for k, v := range fields {
		ev[k] = v
	}
	payload, _ := json.Marshal(ev)
	f.run(payload, handlers)
}

// A second Read of the same lines of an unchanged file gets a pointer to
// the first; the first Read, a Read of other lines, a Read after the file
// changed and a Read after compaction get the content.
func TestRereadIsAPointer(t *testing.T) {
	f := newSwapFixture(t)
	src := strings.Repeat("func f() {}\n", 200) // 2,400 bytes: below the Read threshold
	changed := src + "func g() {}\n"

	if got := f.read("toolu_r1", "/p/x.go", 0, 0, src, nil); got != "" {
		t.Fatalf("first read replaced:\n%s", got)
	}
	got := f.read("toolu_r2", "/p/x.go", 0, 0, src, nil)
	if !strings.Contains(got, "[ctxkeep] Unchanged since your earlier Read of /p/x.go") || len(got) > 400 {
		t.Fatalf("second read:\n%s", got)
	}
	es := f.entries()
	if len(es) != 1 || es[0].Kind != swap.KindPointer || es[0].Chars != len(src) || !strings.Contains(got, es[0].ID) {
		t.Fatalf("entries %+v", es)
	}
	if data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash); err != nil || string(data) != src {
		t.Fatalf("stored %d bytes: %v", len(data), err)
	}
	for _, c := range []struct {
		name, id  string
		offset    int
		content   string
		extra     map[string]any
		beforeRun func()
	}{
		{name: "other lines", id: "toolu_r3", offset: 10, content: src},
		{name: "changed file", id: "toolu_r4", content: changed},
		{name: "changed back", id: "toolu_r5", content: src},
		{name: "in a subagent", id: "toolu_r6", content: src, extra: map[string]any{"agent_id": "a1"}},
		{name: "after compaction", id: "toolu_r7", content: src, beforeRun: func() { f.event("SessionStart", map[string]any{"source": "compact"}) }},
	} {
		if c.beforeRun != nil {
			c.beforeRun()
		}
		if got := f.read(c.id, "/p/x.go", c.offset, 0, c.content, c.extra); got != "" {
			t.Errorf("%s: replaced:\n%s", c.name, got)
		}
	}
	// The Read after compaction is the first again: the next one points.
	if got := f.read("toolu_r8", "/p/x.go", 0, 0, src, nil); !strings.Contains(got, "Unchanged since") {
		t.Errorf("read after the first since compaction:\n%s", got)
	}
}

// Files that must arrive whole, small files and swap.rereads = false are
// never answered by a pointer.
func TestRereadLeftAlone(t *testing.T) {
	f := newSwapFixture(t)
	big := strings.Repeat("rule\n", 400)
	for _, c := range []struct {
		name, path, content string
		vars                map[string]string
	}{
		{name: "CLAUDE.md", path: "/p/CLAUDE.md", content: big},
		{name: "small", path: "/p/small.go", content: "package small\n"},
		{name: "off", path: "/p/y.go", content: big, vars: map[string]string{"CTXKEEP_SWAP_REREADS": "false"}},
	} {
		for k, v := range c.vars {
			f.vars[k] = v
		}
		for i, id := range []string{"toolu_a", "toolu_b"} {
			if got := f.read(id+c.name, c.path, 0, 0, c.content, nil); got != "" {
				t.Errorf("%s: read %d replaced:\n%s", c.name, i+1, got)
			}
		}
	}
	if es := f.entries(); len(es) != 0 {
		t.Errorf("stored %+v", es)
	}
}
