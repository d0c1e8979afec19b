package archive

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// FuzzFold: whatever a transcript holds, cutting it into turns, archiving
// them, folding the state and finding cold tasks never panics; every turn
// gets a distinct key; every file, command and task in the state points
// at a turn that exists.
func FuzzFold(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","message":{"content":"no, use X"}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a","name":"TodoWrite","input":{"todos":[{"content":"x","status":"in_progress"}]}}]}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"go test ./..."}}]}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b","is_error":true,"content":"Exit code 1\n--- FAIL: TestX"}]}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"c","name":"TaskUpdate","input":{"taskId":"7","status":"completed"}}]}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"e","name":"Edit","input":{"file_path":"/p/a.go"}}]}}`,
	} {
		f.Add([]byte(`{"type":"user","message":{"content":"start"}}` + "\n" + s + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := transcript.NewScanner(bytes.NewReader(data), transcript.Cursor{})
		var recs []transcript.Record
		for sc.Scan() {
			recs = append(recs, sc.Record())
		}
		keys := map[string]int{}
		var chunks []ctxkeep.Chunk
		for i, turn := range transcript.Turns(recs) {
			for k, st := range turn.Steps() {
				c := FromStep("s", "/p", i+1, k+1, st, nil)
				if n, dup := keys[c.Key]; dup {
					t.Fatalf("turns %d and %d share key %s", n, i+1, c.Key)
				}
				keys[c.Key] = i + 1
				chunks = append(chunks, c)
			}
		}
		s := Fold("s", chunks, func(c string) bool { return strings.HasPrefix(c, "go test") })
		ColdTasks(s, chunks, s.Turns, nil)
		turn := func(what string, n int, key string) {
			if keys[key] != n {
				t.Fatalf("%s points at turn %d, key %s (turn %d)", what, n, key, keys[key])
			}
		}
		for _, x := range append(append([]File{}, s.Files...), s.Read...) {
			turn("file "+x.Path, x.Turn, x.Key)
		}
		for _, r := range s.Commands {
			turn("command "+r.Command, r.Turn, r.Key)
		}
		for _, x := range append(append([]Task{}, s.Tasks...), s.Todos...) {
			if x.Created < 1 || x.Created > s.Turns || keys[x.Key] == 0 {
				t.Fatalf("task %q created in turn %d of %d, key %s", x.Subject, x.Created, s.Turns, x.Key)
			}
		}
	})
}
