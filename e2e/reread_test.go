package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

// TestUnchangedRereadIsAPointer: Claude Code 2.1.330 sends a second Read of
// an unchanged file to the model whole again (checked first with ctxkeep
// disabled: it has no deduplication of its own in this setup, though its
// binary carries a "File unchanged since last read" message). With
// ctxkeep, the second Read of the same lines gets a pointer to the first;
// the first Read, a Read of other lines and a Read after the file changed
// get the content.
func TestUnchangedRereadIsAPointer(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	path := filepath.Join(h.Project, "small.go")
	src := "package small\n\n" + strings.Repeat("// a line of the file that the agent reads twice\n", 60)
	script := func(prefix string) []fakeapi.Reply {
		return []fakeapi.Reply{
			fakeapi.Call(prefix+"r1", "Read", map[string]any{"file_path": path}),
			fakeapi.Call(prefix+"r2", "Read", map[string]any{"file_path": path}),
			fakeapi.Call(prefix+"r3", "Read", map[string]any{"file_path": path, "offset": 2, "limit": 3}),
			fakeapi.Bash(prefix+"edit", "echo '// changed' >> small.go"),
			fakeapi.Call(prefix+"r4", "Read", map[string]any{"file_path": path}),
			fakeapi.Say("done"),
		}
	}
	results := func(prefix string) map[string]string {
		last := h.API.Last(fakeapi.Main)
		out := map[string]string{}
		for _, id := range []string{"r1", "r2", "r3", "r4"} {
			got, ok := last.ToolResult(prefix + id)
			if !ok {
				t.Fatalf("no result for %s%s", prefix, id)
			}
			out[id] = got
		}
		return out
	}

	// The client alone.
	os.WriteFile(path, []byte(src), 0o644)
	h.Setenv("CTXKEEP_DISABLE", "1")
	h.API.Script(script("toolu_off_")...)
	h.Run("read it twice", "--tools", "Bash,Read")
	off := results("toolu_off_")
	if off["r2"] != off["r1"] || !strings.Contains(off["r2"], "reads twice") {
		t.Fatalf("without ctxkeep, the client changed the second Read:\nfirst:\n%s\nsecond:\n%s", off["r1"], off["r2"])
	}

	// With ctxkeep.
	os.WriteFile(path, []byte(src), 0o644)
	h.Setenv("CTXKEEP_DISABLE", "")
	h.API.Script(script("toolu_on_")...)
	res := h.Run("read it twice", "--tools", "Bash,Read")
	on := results("toolu_on_")
	if on["r1"] != off["r1"] {
		t.Errorf("the first Read changed:\n%s", on["r1"])
	}
	if !strings.Contains(on["r2"], "[ctxkeep] Unchanged since your earlier Read of "+path) || strings.Contains(on["r2"], "reads twice") {
		t.Errorf("second Read:\n%s", on["r2"])
	}
	if !strings.Contains(on["r3"], "reads twice") {
		t.Errorf("Read of other lines:\n%s", on["r3"])
	}
	if !strings.Contains(on["r4"], "// changed") {
		t.Errorf("Read after the change:\n%s", on["r4"])
	}
	e, ok := ck.entries(res.SessionID)["toolu_on_r2"]
	if !ok || ck.run("show", e.ID) != src {
		t.Errorf("the re-read's content is not stored: %+v", e)
	}
}
