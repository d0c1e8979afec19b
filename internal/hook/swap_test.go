package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// swapFixture is a fixture with a migrated index and a client session
// folder, as after `ctxkeep install` and a session start.
type swapFixture struct {
	*fixture
	sessionDir string
	transcript string
}

func newSwapFixture(t *testing.T) *swapFixture {
	f := newFixture(t)
	st, err := store.Open(context.Background(), f.dirs().IndexDB(), f.dirs().Blobs(), store.Migrate, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	projects := filepath.Join(t.TempDir(), ".claude", "projects", "-p")
	os.MkdirAll(projects, 0o700)
	return &swapFixture{fixture: f, sessionDir: filepath.Join(projects, session), transcript: filepath.Join(projects, session+".jsonl")}
}

// post runs a PostToolUse for tool with input and response, and decodes
// the reply (nil when stdout is empty).
func (f *swapFixture) post(tool string, input, response any) map[string]json.RawMessage {
	f.t.Helper()
	ev := map[string]any{
		"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUse",
		"tool_name": tool, "tool_input": input, "tool_response": response, "tool_use_id": "toolu_" + tool,
	}
	payload, _ := json.Marshal(ev)
	out := f.run(payload, handlers)
	if out == "" {
		return nil
	}
	var reply struct {
		Specific map[string]json.RawMessage `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &reply); err != nil {
		f.t.Fatalf("reply %q: %v", out, err)
	}
	return reply.Specific
}

func (f *swapFixture) entries() []ctxkeep.Entry {
	es, _ := f.openStore(f.t, store.Existing).Entries(context.Background(), ctxkeep.EntryFilter{Session: session})
	return es
}

func bash(stdout string) map[string]any {
	return map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
}

func TestPostToolUseSwapsALargeBashOutput(t *testing.T) {
	f := newSwapFixture(t)
	text := strings.Repeat("=== RUN   TestX\n", 500) + "--- FAIL: TestX\n"
	reply := f.post("Bash", map[string]any{"command": "./scripts/e2e.sh"}, bash(text))
	if reply == nil {
		t.Fatalf("no reply; log: %s", f.log())
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	json.Unmarshal(reply["updatedToolOutput"], &out)
	if !strings.Contains(out.Stdout, "L501: --- FAIL: TestX") || len(out.Stdout) > 2500 {
		t.Fatalf("view:\n%s", out.Stdout)
	}
	es := f.entries()
	if len(es) != 1 || es[0].Chars != len(text) || es[0].Failures != 1 || es[0].ExitCode == nil || *es[0].ExitCode != 0 {
		t.Fatalf("entries = %+v", es)
	}
	data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash)
	if err != nil || string(data) != text {
		t.Fatalf("stored blob: %v", err)
	}
	copyText, err := os.ReadFile(es[0].CopyPath)
	if err != nil || string(copyText) != text || !strings.HasPrefix(es[0].CopyPath, filepath.Join(f.sessionDir, "tool-results")+"/") {
		t.Fatalf("copy %s: %v", es[0].CopyPath, err)
	}
}

// An output large enough that the index is opened while it is decoded
// (openEarly) is stored exactly, escapes and all; without an index the
// call fails open and the output stays.
func TestLargeOutputOpensTheIndexWhileDecoding(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 2*openEarly; i++ {
		fmt.Fprintf(&b, "line %d\t\"quoted\" \\ é ✓ \x01 <tag>\n", i)
	}
	text := b.String()
	f := newSwapFixture(t)
	if reply := f.post("Bash", map[string]any{"command": "cat big.log"}, bash(text)); reply == nil {
		t.Fatalf("no reply; log: %s", f.log())
	}
	es := f.entries()
	if len(es) != 1 {
		t.Fatalf("entries = %+v", es)
	}
	if data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash); err != nil || string(data) != text {
		t.Fatalf("stored %d bytes of %d: %v", len(data), len(text), err)
	}

	g := &swapFixture{fixture: newFixture(t), sessionDir: f.sessionDir, transcript: f.transcript} // no index
	if reply := g.post("Bash", map[string]any{"command": "cat big.log"}, bash(text)); reply != nil || !strings.Contains(g.log(), "PostToolUse") {
		t.Fatalf("without an index: reply %v, log %q", reply, g.log())
	}
}

// goTestV is a passing go test -v of n tests.
func goTestV(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "=== RUN   TestCase%02d\n--- PASS: TestCase%02d (0.00s)\n", i, i)
	}
	b.WriteString("PASS\nok  \texample.com/shop\t0.012s\n")
	return b.String()
}

// A test run below the Bash threshold comes back condensed — counts,
// exit status, first and last lines, the way back — and is stored
// exactly, like a swapped output.
func TestPostToolUseCondensesASmallTestRun(t *testing.T) {
	f := newSwapFixture(t)
	text := goTestV(80)
	if len(text) > 6144 {
		t.Fatalf("%d bytes: not below the threshold", len(text))
	}
	reply := f.post("Bash", map[string]any{"command": "go test -v ./..."}, bash(text))
	if reply == nil {
		t.Fatalf("no reply; log: %s", f.log())
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	json.Unmarshal(reply["updatedToolOutput"], &out)
	for _, want := range []string{"[ctxkeep] go test output condensed", "passed tests: 80", "test starts: 80", "exit status 0",
		"=== RUN   TestCase00\n", "PASS\nok  \texample.com/shop\t0.012s\n", "ctxkeep show "} {
		if !strings.Contains(out.Stdout, want) {
			t.Errorf("condensed output lacks %q:\n%s", want, out.Stdout)
		}
	}
	if len(out.Stdout) > len(text)*7/10 {
		t.Errorf("%d of %d bytes", len(out.Stdout), len(text))
	}
	es := f.entries()
	if len(es) != 1 || es[0].Kind != swap.KindCondensed || es[0].Chars != len(text) || es[0].ViewChars != utf8.RuneCountInString(out.Stdout) {
		t.Fatalf("entries = %+v", es)
	}
	if data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash); err != nil || string(data) != text {
		t.Fatalf("stored blob: %v", err)
	}
}

// A small output that its condenser would not shrink by
// swap.condense_min_saving stays whole and is not stored; with
// swap.condense off, nothing is condensed.
func TestPostToolUseCondensesOnlyWhenItSaves(t *testing.T) {
	f := newSwapFixture(t)
	if reply := f.post("Bash", map[string]any{"command": "go test -v ./..."}, bash(goTestV(3))); reply != nil {
		t.Errorf("3 tests condensed: %s", reply["updatedToolOutput"])
	}
	f.vars["CTXKEEP_SWAP_CONDENSE_MIN_SAVING"] = "90"
	if reply := f.post("Bash", map[string]any{"command": "go test -v ./..."}, bash(goTestV(80))); reply != nil {
		t.Errorf("condensed below a 90%% saving: %s", reply["updatedToolOutput"])
	}
	f.vars["CTXKEEP_SWAP_CONDENSE_MIN_SAVING"] = "30"
	f.vars["CTXKEEP_SWAP_CONDENSE"] = "false"
	if reply := f.post("Bash", map[string]any{"command": "go test -v ./..."}, bash(goTestV(80))); reply != nil {
		t.Errorf("condensed with swap.condense off: %s", reply["updatedToolOutput"])
	}
	if es := f.entries(); len(es) != 0 {
		t.Errorf("stored %+v", es)
	}
}

// A view names ctxkeep's MCP tools when the session has them: the hook
// runs from ctxkeep's plugin, which starts the server, or install noted
// that the client configuration of this HOME registers it; else the
// command line. The resume inventory says the same.
func TestViewsNameTheToolsTheSessionHas(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *swapFixture)
		want  string
	}{
		{"nothing registered", func(*swapFixture) {}, "run `ctxkeep show "},
		{"registered for this HOME", func(f *swapFixture) {
			claudecode.NoteMCPRegistered(f.dirs().MCPRegistrations(), filepath.Join(f.vars["HOME"], ".claude.json"), true)
		}, "call `mcp__ctxkeep__show {\"id\":"},
		{"registered for another config dir", func(f *swapFixture) {
			claudecode.NoteMCPRegistered(f.dirs().MCPRegistrations(), filepath.Join(f.vars["HOME"], ".claude.json"), true)
			f.vars["CLAUDE_CONFIG_DIR"] = t.TempDir()
		}, "run `ctxkeep show "},
		{"ctxkeep's plugin", func(f *swapFixture) {
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"mcpServers":{}}`), 0o600)
			f.vars["CLAUDE_PLUGIN_ROOT"] = root
		}, "call `mcp__plugin_ctxkeep_ctxkeep__show {\"id\":"},
	} {
		f := newSwapFixture(t)
		f.vars["HOME"] = t.TempDir()
		tc.setup(f)
		reply := f.post("Bash", map[string]any{"command": "go test ./..."}, bash(strings.Repeat("=== RUN   TestX\n", 900)))
		var out struct {
			Stdout string `json:"stdout"`
		}
		json.Unmarshal(reply["updatedToolOutput"], &out)
		if !strings.Contains(out.Stdout, tc.want) {
			t.Errorf("%s: the view lacks %q:\n%s", tc.name, tc.want, out.Stdout)
		}
		ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "hook_event_name": "SessionStart", "source": "resume"})
		if inv := f.run(ev, handlers); strings.Contains(tc.want, "mcp__") != strings.Contains(inv, "mcp__") {
			t.Errorf("%s: the inventory names another way back:\n%s", tc.name, inv)
		}
	}
}

func TestPostToolUseLeavesSmallAndWholeOutputs(t *testing.T) {
	f := newSwapFixture(t)
	big := strings.Repeat("x\n", 5000)
	for name, tc := range map[string]struct {
		tool     string
		input    any
		response any
	}{
		"small":       {"Bash", map[string]any{"command": "go test"}, bash("ok")},
		"trivial":     {"Bash", map[string]any{"command": "git branch -a"}, bash(big)},
		"CLAUDE.md":   {"Read", map[string]any{"file_path": "/p/CLAUDE.md"}, map[string]any{"type": "text", "file": map[string]any{"filePath": "/p/CLAUDE.md", "content": big, "numLines": 5000, "startLine": 1, "totalLines": 5000}}},
		"image":       {"Read", map[string]any{"file_path": "/p/x.png"}, map[string]any{"type": "image", "file": map[string]any{"base64": big, "type": "image/png", "originalSize": 1}}},
		"unknown":     {"Edit", map[string]any{"file_path": "/p/x"}, map[string]any{"filePath": "/p/x", "originalFile": big}},
		"own content": {"Read", map[string]any{"file_path": "/s/tool-results/ctxkeep-abc.txt"}, map[string]any{"type": "text", "file": map[string]any{"filePath": "/s/tool-results/ctxkeep-abc.txt", "content": big}}},
	} {
		if reply := f.post(tc.tool, tc.input, tc.response); reply != nil {
			t.Errorf("%s: replied %v", name, reply)
		}
	}
	if es := f.entries(); len(es) != 0 {
		t.Fatalf("stored %d entries", len(es))
	}
}

func TestPostToolUseSubagentsPassThrough(t *testing.T) {
	f := newSwapFixture(t)
	ev := map[string]any{
		"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUse", "agent_id": "a1",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "cat big"}, "tool_response": bash(strings.Repeat("x\n", 9000)), "tool_use_id": "toolu_1",
	}
	payload, _ := json.Marshal(ev)
	if out := f.run(payload, handlers); out != "" {
		t.Fatalf("subagent call swapped: %s", out)
	}
	f.vars["CTXKEEP_SWAP_SUBAGENTS"] = "true"
	if out := f.run(payload, handlers); out == "" {
		t.Fatalf("swap.subagents=true did not swap; log %s", f.log())
	}
}

// A Bash output the client cut is read back from the file the client saved,
// and only from the session's tool-results folder.
func TestPostToolUseReadsThePersistedOutput(t *testing.T) {
	f := newSwapFixture(t)
	full := strings.Repeat("line of a long output\n", 5000)
	persisted := filepath.Join(f.sessionDir, "tool-results", "b1.txt")
	os.MkdirAll(filepath.Dir(persisted), 0o700)
	os.WriteFile(persisted, []byte(full), 0o600)
	resp := bash(full[:30000])
	resp["persistedOutputPath"] = persisted
	if f.post("Bash", map[string]any{"command": "cat log"}, resp) == nil {
		t.Fatalf("no reply; log %s", f.log())
	}
	if es := f.entries(); len(es) != 1 || es[0].Chars != len(full) {
		t.Fatalf("entries = %+v", es)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte(full), 0o600)
	resp["persistedOutputPath"] = outside
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "cat log"}, "tool_response": resp, "tool_use_id": "toolu_2"}
	payload, _ := json.Marshal(ev)
	if out := f.run(payload, handlers); out != "" || !strings.Contains(f.log(), "outside the session's tool-results folder") {
		t.Fatalf("stdout %q, log %s", out, f.log())
	}
}

// Without an index (never installed, or from another version) nothing may
// be swapped: the original passes through and the log says why.
func TestPostToolUseWithoutIndexPassesThrough(t *testing.T) {
	f := newFixture(t)
	ev := map[string]any{"session_id": session, "transcript_path": "/h/.claude/projects/-p/" + session + ".jsonl", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "cat log"}, "tool_response": bash(strings.Repeat("x\n", 9000)), "tool_use_id": "toolu_1"}
	payload, _ := json.Marshal(ev)
	if out := f.run(payload, handlers); out != "" {
		t.Fatalf("stdout %q", out)
	}
	if recs := f.journal(session); len(recs) != 1 || recs[0].Outcome != ctxkeep.Failed {
		t.Fatalf("journal %+v; log %s", recs, f.log())
	}
}

func TestResumeInjectsTheInventory(t *testing.T) {
	f := newSwapFixture(t)
	f.post("Bash", map[string]any{"command": "go test ./..."}, bash(strings.Repeat("ok\n", 4000)))
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "hook_event_name": "SessionStart", "source": "resume"}
	payload, _ := json.Marshal(ev)
	out := f.run(payload, handlers)
	if !strings.Contains(out, `"additionalContext":"ctxkeep kept these tool outputs`) || !strings.Contains(out, "Bash `go test ./...`: 4,000 lines, exit 0") {
		t.Fatalf("stdout %s; log %s", out, f.log())
	}
	ev["source"] = "startup"
	payload, _ = json.Marshal(ev)
	if out := f.run(payload, handlers); out != "" {
		t.Fatalf("startup injected %s", out)
	}
}

func TestInventoryFitsItsBudget(t *testing.T) {
	var es []ctxkeep.Entry
	for i := range 200 {
		es = append(es, ctxkeep.Entry{ID: strings.Repeat("a", 11) + string(rune('a'+i%26)), Tool: "Bash", Input: strings.Repeat("cmd ", 50), Summary: "9 lines"})
	}
	inv := Inventory(es, 4000, swap.Retrieval{})
	if len(inv) > 4000 || !strings.Contains(inv, "older: `ctxkeep list`") {
		t.Fatalf("%d bytes:\n%s", len(inv), inv)
	}
}

// One hook call has one project: with no CLAUDE_PROJECT_DIR and the shell
// in a subfolder of a repository, the repository's root gives the project
// config (here a low Bash threshold), the project the stored output names
// and the project the command is learned for.
func TestOneProjectPerCall(t *testing.T) {
	f := newSwapFixture(t)
	repo := t.TempDir()
	sub := filepath.Join(repo, "internal", "api")
	os.MkdirAll(sub, 0o700)
	os.Mkdir(filepath.Join(repo, ".git"), 0o700)
	os.WriteFile(filepath.Join(repo, ".ctxkeep.toml"), []byte("[threshold]\nBash = 1000\n"), 0o600)
	delete(f.vars, "CLAUDE_PROJECT_DIR")
	env := f.env()
	env.Getwd = func() (string, error) { return sub, nil }
	payload, _ := json.Marshal(map[string]any{
		"session_id": session, "transcript_path": f.transcript, "cwd": sub, "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "tool_response": bash(strings.Repeat("ok\n", 600)),
		"tool_use_id": "toolu_1",
	})
	var out bytes.Buffer
	run(time.Now(), env, bytes.NewReader(payload), &out, handlers)
	if !strings.Contains(out.String(), "swapped out") {
		t.Fatalf("1,800 characters over the repository's threshold of 1,000 were not swapped: %q; log: %s", out.String(), f.log())
	}
	// The stored output names the project, which the MCP server serves.
	if es := f.entries(); len(es) != 1 || es[0].Project != repo {
		t.Errorf("the entry's project: %+v, want %s", es, repo)
	}
	// The command is learned at the end of the turn, not on the hot path.
	if _, err := os.Stat(f.dirs().Learned()); !os.IsNotExist(err) {
		t.Fatalf("PostToolUse wrote the learned commands file (%v): that lock belongs at Stop", err)
	}
	stop, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": sub, "hook_event_name": "Stop"})
	run(time.Now(), env, bytes.NewReader(stop), &bytes.Buffer{}, handlers)
	data, err := os.ReadFile(f.dirs().Learned())
	if err != nil || !strings.Contains(string(data), strconv.Quote(repo)) || strings.Contains(string(data), strconv.Quote(sub)) {
		t.Fatalf("learned for another project than %s: %s (%v)", repo, data, err)
	}
}

// Planted secrets: the view, the entry's call (listed, restored, searched)
// hold markers; the store keeps the exact bytes unless
// privacy.redact_store says otherwise.
func TestSecretsAreRedactedOutsideTheStore(t *testing.T) {
	for _, redactStore := range []bool{false, true} {
		f := newSwapFixture(t)
		if redactStore {
			f.vars["CTXKEEP_PRIVACY_REDACT_STORE"] = "true"
		}
		command := "curl -H 'Authorization: token " + redacttest.GitHubToken + "' https://api.github.com/x"
		output := strings.Repeat("line of a long build log\n", 400) + "AWS_ACCESS_KEY_ID=" + redacttest.AWSKeyID + "\n" + redacttest.PEM + "\n"
		reply := f.post("Bash", map[string]any{"command": command}, bash(output))
		if reply == nil {
			t.Fatalf("no reply; log: %s", f.log())
		}
		view := string(reply["updatedToolOutput"])
		for _, secret := range []string{redacttest.GitHubToken, redacttest.AWSKeyID, redacttest.PEMBody} {
			if strings.Contains(view, secret) {
				t.Errorf("the view shows a secret: %s", secret)
			}
		}
		es := f.entries()
		if len(es) != 1 || strings.Contains(es[0].Input, redacttest.GitHubToken) || !strings.Contains(es[0].Input, "[redacted:") {
			t.Fatalf("the entry's call keeps the token: %+v", es)
		}
		data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash)
		if err != nil {
			t.Fatal(err)
		}
		if exact := string(data) == output; exact == redactStore {
			t.Errorf("redact_store=%t: the stored bytes are exact: %t", redactStore, exact)
		}
		if redactStore && strings.Contains(string(data), redacttest.AWSKeyID) {
			t.Error("redact_store=true, and the blob holds the key")
		}
	}
}

// A small output holding control sequences reaches the model as a
// terminal shows it — the same lines, no escape — and its original is
// stored exactly; a small plain one gets no reply.
func TestSmallColouredOutputIsCleaned(t *testing.T) {
	f := newSwapFixture(t)
	text := "\x1b[32m✓\x1b[39m adds\r\n\x1b[31m✗\x1b[39m totals\n 10%\r 50%\r100% done\n"
	reply := f.post("Bash", map[string]any{"command": "ls --color=always"}, bash(text))
	if reply == nil {
		t.Fatalf("no reply; log: %s", f.log())
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	json.Unmarshal(reply["updatedToolOutput"], &out)
	if out.Stdout != "✓ adds\n✗ totals\n100% done\n" {
		t.Fatalf("cleaned output %q", out.Stdout)
	}
	es := f.entries()
	if len(es) != 1 || es[0].Kind != swap.KindCleaned {
		t.Fatalf("entries = %+v", es)
	}
	if data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash); err != nil || string(data) != text {
		t.Fatalf("stored %q: %v", data, err)
	}
	if reply := f.post("Bash", map[string]any{"command": "echo hi"}, bash("plain\r\nlines\n")); reply != nil {
		t.Fatalf("a plain output was replaced: %v", reply)
	}
}
