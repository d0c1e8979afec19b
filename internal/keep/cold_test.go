package keep

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A task completed early and not mentioned for 20 turns is summarised
// once the context is 70 % of the way to compaction, at a tenth turn, and
// only once; the preservation notes then carry its summary.
func TestColdTasks(t *testing.T) {
	s := &session{t: t}
	s.prompt("Add a rate limiter to the API.")
	s.tool("c1", "TaskCreate", map[string]any{"subject": "Write the limiter", "description": "d"}, "Task #1 created successfully", 0,
		map[string]any{"task": map[string]any{"id": "1", "subject": "Write the limiter"}})
	s.tool("e1", "Edit", map[string]any{"file_path": "/p/internal/api/limit.go", "old_string": "a", "new_string": "b"}, "The file has been updated", 0, nil)
	s.tool("b1", "Bash", map[string]any{"command": "go test ./internal/api/..."}, "ok", 0, nil)
	s.tool("u1", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}, "Updated task #1", 0, nil)
	s.tool("c2", "TaskCreate", map[string]any{"subject": "Tune the cache", "description": "d"}, "Task #2 created successfully", 0,
		map[string]any{"task": map[string]any{"id": "2", "subject": "Tune the cache"}})
	s.tool("u2", "TaskUpdate", map[string]any{"taskId": "2", "status": "completed"}, "Updated task #2", 0, nil)
	for i := 2; i <= 30; i++ {
		text := fmt.Sprintf("Now look at part %d of the report.", i)
		if i == 25 {
			text = "Tune the cache again, it is slow." // task #2 is mentioned: not cold
		}
		s.prompt(text)
		s.say("Done.")
	}
	path := filepath.Join(t.TempDir(), "cold.jsonl")
	s.write(path)
	st := newStore(t)
	sess := Session{ID: "fixture", Project: "/p", Transcript: path}
	res, err := Archive(ctx, st, sess)
	if err != nil || res.Turns != 30 {
		t.Fatalf("archive: %+v, %v", res, err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		turns   int
		percent float64
		want    int
	}{
		{30, 50, 0}, // not full enough
		{29, 90, 0}, // not a tenth turn
		{30, 70, 1}, // the limiter
		{30, 95, 0}, // already summarised
	} {
		n, err := UpdateCold(ctx, st, sess, c.turns, c.percent, nil, now)
		if err != nil || n != c.want {
			t.Errorf("turn %d at %v%%: %d new summaries, %v; want %d", c.turns, c.percent, n, err, c.want)
		}
	}
	cold, _ := st.ColdTasks(ctx, "fixture")
	if len(cold) != 1 || cold[0].TaskID != "1" || !strings.Contains(cold[0].Summary, "limit.go") || !strings.Contains(cold[0].Summary, "go test") {
		t.Fatalf("cold tasks = %+v", cold)
	}
	block, err := Preserve(ctx, st, sess, "auto", Options{PreserveBudget: 9000})
	if err != nil || !strings.Contains(block, "#1 Write the limiter: "+cold[0].Summary) {
		t.Errorf("the preservation notes do not carry the cold task's summary (%v):\n%s", err, block)
	}
}
