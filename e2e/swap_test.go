package e2e

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

const viewBudget = 2500 // config default view.budget

// TestLargeOutputsAreSwappedOut drives a session whose tools return large
// outputs — Bash (~200 KB, failures in the middle, above the client's own
// 30,000-character cut), Read (~60 KB source), Grep (hundreds of matches),
// an MCP tool (40 KB) — and checks what the model received: each one's
// view, within budget, with every failure line and a way back; not the
// original. Then the originals come back byte for byte, and the agent's
// own Read of the copy works.
func TestLargeOutputsAreSwappedOut(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	writeFixtures(t, h.Project)
	mcp := buildMCP(t, h)

	var copyPath string
	h.API.Script(
		fakeapi.Bash("toolu_bash", "sh gen.sh"),
		fakeapi.Call("toolu_read", "Read", map[string]any{"file_path": filepath.Join(h.Project, "big.go")}),
		fakeapi.Call("toolu_grep", "Grep", map[string]any{"pattern": "TODO", "output_mode": "content", "-n": true, "head_limit": 0}),
		fakeapi.Call("toolu_mcp", "mcp__big__dump", map[string]any{}),
	)
	h.API.Respond(func(r *fakeapi.Request) fakeapi.Reply {
		if _, ok := r.ToolResult("toolu_copy"); ok || copyPath != "" {
			return fakeapi.Say("done")
		}
		// Read back lines 2499–2502 of the Bash output through the copy the view names.
		view, _ := r.ToolResult("toolu_bash")
		m := regexp.MustCompile(`Read (\S+ctxkeep-[0-9a-f]{12}\.txt) with offset/limit`).FindStringSubmatch(view)
		if m == nil {
			return fakeapi.Say("no copy path in the view")
		}
		copyPath = m[1]
		return fakeapi.Call("toolu_copy", "Read", map[string]any{"file_path": copyPath, "offset": 2499, "limit": 4})
	})
	res := h.Run("look at everything", "--tools", "Bash,Read,Grep", "--mcp-config", mcp)

	last := h.API.Last(fakeapi.Main)
	cases := []struct {
		id, tool, original string
		mustShow           []string
	}{
		{"toolu_bash", "Bash", genOutput(), []string{"L2500: --- FAIL: TestCase2500", "L4000: panic: runtime error", "exit status 0"}},
		{"toolu_read", "Read", bigGo(), []string{"outline (go, 400 declarations)", "L216 Handler0042", "Read " + filepath.Join(h.Project, "big.go") + " again with offset and limit"}},
		{"toolu_grep", "Grep", "", []string{"matching lines in 20 files"}},
		{"toolu_mcp", "mcp__big__dump", mcpReport(), []string{"L600: ERROR: replica db-7 lost quorum"}},
	}
	entries := ck.entries(res.SessionID)
	for _, c := range cases {
		view, ok := last.ToolResult(c.id)
		if !ok {
			t.Errorf("%s: no tool result in the last request", c.tool)
			continue
		}
		if len(view) > viewBudget+400 { // the client adds line numbers to Read views
			t.Errorf("%s: the model saw %d characters:\n%s", c.tool, len(view), view)
		}
		for _, want := range append(c.mustShow, "[ctxkeep]", `mcp__ctxkeep__show {"id":"`) { // install registered the MCP server
			if !strings.Contains(view, want) {
				t.Errorf("%s: view lacks %q:\n%s", c.tool, want, view)
			}
		}
		e, ok := entries[c.id]
		if !ok {
			t.Errorf("%s: no entry stored", c.tool)
			continue
		}
		got := ck.run("show", e.ID)
		if c.original != "" && sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(c.original)) {
			t.Errorf("%s: `ctxkeep show %s` returned %d bytes that differ from the original %d", c.tool, e.ID, len(got), len(c.original))
		}
		if c.original == "" && !strings.Contains(got, "TODO") {
			t.Errorf("%s: show returned %q…", c.tool, truncate(got, 200))
		}
	}
	// The original never reached the model.
	for _, r := range h.API.RequestsOf(fakeapi.Main) {
		if r.Contains("=== RUN   TestCase3000") || r.Contains("func Handler0150(") || r.Contains("record 0300: status nominal") {
			t.Fatalf("request #%d carries an original output", r.Seq)
		}
	}
	// The agent's Read of the copy returned the exact lines.
	page, ok := last.ToolResult("toolu_copy")
	if !ok || !strings.Contains(page, "2500\t--- FAIL: TestCase2500") || !strings.Contains(page, "2499\t=== RUN   TestCase2499") {
		t.Errorf("Read of %s gave %q (found %v)", copyPath, page, ok)
	}
	lines := ck.run("show", entries["toolu_bash"].ID, "--lines", "2500:2500")
	if lines != "--- FAIL: TestCase2500\n" {
		t.Errorf("show --lines 2500:2500 = %q", lines)
	}
	// The client took every replacement, in every tool's shape: the proof
	// of effect found each in the transcript at the end of the turn.
	if s := ck.stats(res.SessionID); s.Swap == nil || s.Swap.Applied != len(cases) || s.Swap.NotApplied != 0 || s.Swap.Unchecked != 0 {
		t.Errorf("replacements applied: %+v, want %d applied", s.Swap, len(cases))
	}
	// Replayed, the session counts from the originals ctxkeep stored, not
	// from the views its transcript holds.
	var replayed struct {
		Total struct {
			Swapped     int `json:"swapped"`
			CharsBefore int `json:"chars_before"`
		} `json:"total"`
		Replaced int `json:"replaced_when_recorded"`
	}
	ck.runJSON(&replayed, "replay", res.SessionID, "--json")
	if replayed.Replaced < len(cases) || replayed.Total.Swapped < len(cases) || replayed.Total.CharsBefore < len(genOutput())+len(bigGo()) {
		t.Errorf("replay of the session: %+v", replayed)
	}

	// Resumed, the session is told what it has stored and how to get it.
	before := len(h.API.RequestsOf(fakeapi.Main))
	h.Run("continue", "--resume", res.SessionID, "--tools", "Bash,Read,Grep", "--mcp-config", mcp)
	first := h.API.RequestsOf(fakeapi.Main)[before]
	inventory := strings.Join(first.SystemMessages(), "\n")
	for _, c := range cases {
		if e := entries[c.id]; !strings.Contains(inventory, e.ID+" "+c.tool) {
			t.Errorf("the resumed session's first request does not list %s %s:\n%s", e.ID, c.tool, inventory)
		}
	}
	if !strings.Contains(inventory, `mcp__ctxkeep__show {"id":"ID"}`) {
		t.Errorf("inventory without retrieval hint:\n%s", inventory)
	}
}

// TestFailingCommandIsCapturedWhole runs a command that fails with ~50 KB
// of output through the wrapper: the model sees its errors (not the
// client's 10,000-character cut) and the exit status stays 1. The wrapper
// keeps the shell's working directory as the client has it: a `cd` made
// before holds inside the wrapped command, and a `cd` inside a wrapped
// command that succeeds holds after it. (After a failing command the client
// itself goes back to the project folder, wrapper or not: §4.3.)
func TestFailingCommandIsCapturedWhole(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	writeFixtures(t, h.Project)
	os.WriteFile(filepath.Join(h.Project, ".ctxkeep.toml"), []byte("[wrapper]\ncommands = [\"sh ../fail.sh\", \"sh ../../gen.sh\"]\n"), 0o644)

	h.API.Script(
		fakeapi.Bash("toolu_cd", "cd sub"),
		fakeapi.Bash("toolu_fail", "sh ../fail.sh"),
		fakeapi.Bash("toolu_cd2", "cd sub"),
		fakeapi.Bash("toolu_pass", "cd deeper && sh ../../gen.sh"),
		fakeapi.Bash("toolu_pwd", "pwd"),
		fakeapi.Say("done"),
	)
	res := h.Run("run the tests", "--tools", "Bash")

	last := h.API.Last(fakeapi.Main)
	out, ok := last.ToolResult("toolu_fail")
	if !ok {
		t.Fatal("no result for the failing command")
	}
	for _, want := range []string{"Exit code 1", "[ctxkeep] Bash output", "exit status 1", "L1: cwd: " + filepath.Join(h.Project, "sub"),
		"L1500: FAIL: test_checkout_total", "L2900: AssertionError: expected 42, got 41"} {
		if !strings.Contains(out, want) {
			t.Errorf("the model's result lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "characters truncated") {
		t.Errorf("the client cut the output: the wrapper did not run")
	}
	pass, _ := last.ToolResult("toolu_pass")
	if !strings.Contains(pass, "[ctxkeep] Bash output") || !strings.Contains(pass, "exit status 0") || strings.Contains(pass, "Exit code") {
		t.Errorf("wrapped successful command:\n%s", pass)
	}
	if pwd, _ := last.ToolResult("toolu_pwd"); strings.TrimSpace(pwd) != filepath.Join(h.Project, "sub", "deeper") {
		t.Errorf("pwd after the wrapped command = %q, want %s/sub/deeper", pwd, h.Project)
	}
	entries := ck.entries(res.SessionID)
	e := entries["toolu_fail"]
	if e.ID == "" || e.ExitCode == nil || *e.ExitCode != 1 {
		t.Fatalf("entry = %+v", e)
	}
	if got := ck.run("show", e.ID); sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(failOutput(filepath.Join(h.Project, "sub")))) {
		t.Errorf("stored output differs from what the command printed (%d bytes)", len(got))
	}
	if got := ck.run("show", entries["toolu_pass"].ID); got != genOutput() {
		t.Errorf("stored output of the passing command differs (%d bytes)", len(got))
	}
	if entries, _ := os.ReadDir(filepath.Join(h.Home, ".local/state/ctxkeep/spool")); len(entries) != 0 {
		t.Errorf("spool not cleaned: %v", entries)
	}
}

// writeFixtures writes the files the scripted tools use.
func writeFixtures(t *testing.T, project string) {
	t.Helper()
	files := map[string]string{
		"gen.sh":  "i=1\nwhile [ $i -le 5000 ]; do\n  case $i in\n    2500) echo \"--- FAIL: TestCase2500\" ;;\n    4000) echo \"panic: runtime error: index out of range\" ;;\n    *) echo \"=== RUN   TestCase$i\" ;;\n  esac\n  i=$((i+1))\ndone\n",
		"fail.sh": "echo \"cwd: $(pwd)\"\ni=2\nwhile [ $i -le 3000 ]; do\n  case $i in\n    1500) echo \"FAIL: test_checkout_total\" ;;\n    2900) echo \"AssertionError: expected 42, got 41\" ;;\n    *) echo \"test_case_$i ... ok\" ;;\n  esac\n  i=$((i+1))\ndone\nexit 1\n",
		"big.go":  bigGo(),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(project, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(project, "sub", "deeper"), 0o755)
	for i := range 20 {
		var b strings.Builder
		for j := range 30 {
			fmt.Fprintf(&b, "line %d // TODO: item %d-%d\n", j, i, j)
		}
		os.WriteFile(filepath.Join(project, "sub", fmt.Sprintf("todo%02d.txt", i)), []byte(b.String()), 0o644)
	}
}

func genOutput() string {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		switch i {
		case 2500:
			b.WriteString("--- FAIL: TestCase2500\n")
		case 4000:
			b.WriteString("panic: runtime error: index out of range\n")
		default:
			fmt.Fprintf(&b, "=== RUN   TestCase%d\n", i)
		}
	}
	return b.String()
}

func failOutput(cwd string) string {
	var b strings.Builder
	b.WriteString("cwd: " + cwd + "\n")
	for i := 2; i <= 3000; i++ {
		switch i {
		case 1500:
			b.WriteString("FAIL: test_checkout_total\n")
		case 2900:
			b.WriteString("AssertionError: expected 42, got 41\n")
		default:
			fmt.Fprintf(&b, "test_case_%d ... ok\n", i)
		}
	}
	return b.String()
}

// bigGo is a ~60 KB Go source file.
func bigGo() string {
	var b strings.Builder
	b.WriteString("package big\n\nimport \"net/http\"\n\n")
	for i := range 400 {
		fmt.Fprintf(&b, "// Handler%04d serves route %d.\nfunc Handler%04d(w http.ResponseWriter, r *http.Request) {\n\tw.Write([]byte(\"route %d\"))\n}\n\n", i, i, i, i)
	}
	return b.String()
}

func mcpReport() string {
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		if i == 600 {
			b.WriteString("ERROR: replica db-7 lost quorum at 12:04:33\n")
			continue
		}
		fmt.Fprintf(&b, "record %04d: status nominal, latency 12ms\n", i)
	}
	return b.String()
}

// buildMCP builds the test MCP server and returns an --mcp-config for it.
func buildMCP(t *testing.T, h *clienttest.Harness) string {
	t.Helper()
	bin := filepath.Join(h.Home, "bigmcp")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/bigmcp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build bigmcp: %v\n%s", err, out)
	}
	return fmt.Sprintf(`{"mcpServers":{"big":{"type":"stdio","command":%q}}}`, bin)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
