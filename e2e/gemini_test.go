package e2e

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/codextest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
	"github.com/ctxkeep/ctxkeep/internal/fakegemini"
	"github.com/ctxkeep/ctxkeep/internal/fakeresponses"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/geminitest"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// The real Gemini CLI (0.61.0, scripts/install-gemini.sh) against the fake
// Gemini API, with ctxkeep installed as a user installs it, in the user's
// ~/.gemini/settings.json.

// newGeminiCtxkeep runs ctxkeep as the user of h, with generous deadlines.
func newGeminiCtxkeep(t *testing.T, h *geminitest.Harness) *ctxkeep {
	generousDeadlines(t, h.Home)
	return &ctxkeep{t: t, bin: testbin.Path(t), dir: h.Project,
		env: []string{"HOME=" + h.Home, "PATH=" + os.Getenv("PATH")}}
}

// rows is what `seq 1 n | awk '{print "row " $1}'` prints, with a marker
// line after row mark.
func rows(n, mark int, marker string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "row %d\n", i)
		if i == mark {
			b.WriteString(marker + "\n")
		}
	}
	return b.String()
}

// onlyEntry is the one output a session stored.
func onlyEntry(t *testing.T, ck *ctxkeep, session string) entry {
	t.Helper()
	entries := ck.entries(session)
	if len(entries) != 1 {
		t.Fatalf("session %s stored %d outputs: %v", session, len(entries), slices.Collect(maps.Keys(entries)))
	}
	for _, e := range entries {
		return e
	}
	panic("unreachable")
}

// (a) A large shell output reaches the model as ctxkeep's view — the
// reason of AfterTool's deny, which the model gets as the call's error,
// exactly — and comes back exact with `ctxkeep show`. A test runner's
// output goes through the wrapper (BeforeTool rewrites the command), and
// its view reaches the model as the command's own output.
func TestGeminiLargeOutputIsSwappedOut(t *testing.T) {
	h := geminitest.New(t)
	ck := newGeminiCtxkeep(t, h)
	out := ck.run("install", "--agent", "gemini")
	if !strings.Contains(out, "installed ctxkeep's hooks for 8 events in "+h.SettingsFile()) {
		t.Fatalf("install said:\n%s", out)
	}
	const marker = "GEMINI-MARK-7731-OSPREY"
	big := rows(40000, 23456, marker)
	writeScript(t, h.Project, "tests.sh", failingLog(4000), 1) // ~200 KB
	os.WriteFile(filepath.Join(h.Project, ".ctxkeep.toml"), []byte("[wrapper]\ncommands = [\"./tests.sh\"]\n"), 0o644)

	h.API.Script(
		fakegemini.Shell("call_big", `seq 1 40000 | awk '{print "row " $1} $1==23456 {print "`+marker+`"}'`),
		fakegemini.Shell("call_tests", "./tests.sh"),
		fakegemini.Say("done"),
	)
	res := h.Run("reconcile the ledger rows")
	last := h.API.Last(fakegemini.Main)

	resp, ok := last.ToolResponse("call_big")
	if !ok {
		t.Fatal("no response to call_big in the last request")
	}
	view := resp.Text()
	// A deny is a failed tool to the CLI: it says so on stderr, the view with it.
	if !strings.Contains(res.Stderr, "Tool result blocked: [ctxkeep] Bash output swapped out") {
		t.Errorf("stderr:\n%s", res.Stderr)
	}
	if !resp.IsError() || !strings.HasPrefix(view, "[ctxkeep] Bash output swapped out") || !strings.Contains(view, "ctxkeep show ") {
		t.Errorf("the model got (error %t):\n%s", resp.IsError(), view)
	}
	if len(view) > 20000 || strings.Contains(view, "row 20000\n") {
		t.Errorf("the model got %d characters of the output", len(view))
	}
	for _, r := range h.API.RequestsOf(fakegemini.Main) {
		if r.Contains(`row 20000\n`) || r.Contains("Output too large") {
			t.Errorf("request #%d carries the output, or the CLI's cut of it", r.Seq)
		}
	}
	// The CLI hands the hook the output without its last newline.
	want := strings.TrimSuffix(big, "\n")
	e := ck.entries(res.SessionID)
	var bigEntry *entry
	for _, en := range e {
		if en.Chars == len(want) {
			bigEntry = &en
		}
	}
	if bigEntry == nil {
		t.Fatalf("no entry of %d characters among %+v", len(want), e)
	}
	if bigEntry.ExitCode == nil || *bigEntry.ExitCode != 0 {
		t.Errorf("exit code of the seq: %v", bigEntry.ExitCode)
	}
	got := ck.run("show", bigEntry.ID)
	if sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(want)) {
		t.Errorf("`ctxkeep show %s` gave %d bytes that differ from the %d of the output", bigEntry.ID, len(got), len(want))
	}
	if grep := ck.run("show", bigEntry.ID, "--grep", "OSPREY"); !strings.Contains(grep, marker) {
		t.Errorf("show --grep: %q", grep)
	}

	// Replay finds the session by its id, and counts the output ctxkeep
	// replaced from its original, as much as the CLI would have given the
	// model (it cuts an output to 40,000 characters).
	var rp struct {
		Replaced int `json:"replaced_when_recorded"`
		Total    struct {
			Calls       int `json:"calls"`
			Swapped     int `json:"swapped"`
			CharsBefore int `json:"chars_before"`
		} `json:"total"`
	}
	ck.runJSON(&rp, "replay", res.SessionID)
	if rp.Replaced != 1 || rp.Total.Calls != 2 || rp.Total.Swapped < 1 || rp.Total.CharsBefore < 40_000 {
		t.Errorf("replay: %+v", rp)
	}

	// stats: every hook call journaled, none failed; the chat holds the
	// deny's view (proof of effect, read at AfterAgent), the wrapper's
	// output is ctxkeep's own.
	s := ck.stats(res.SessionID)
	if s.Failures != 0 || s.count("AfterTool") != 2 || s.count("BeforeModel") == 0 || s.Swap == nil ||
		s.Swap.Entries != 2 || s.Swap.Applied != 1 || s.Swap.NotApplied != 0 || s.Swap.Unchecked != 0 {
		t.Errorf("stats: %+v swap %+v", s, s.Swap)
	}

	// The wrapped runner: its view is the command's output, a success.
	tests, ok := last.ToolResponse("call_tests")
	if !ok {
		t.Fatal("no response to call_tests")
	}
	for _, want := range []string{"[ctxkeep] Bash output swapped out", "exit status 1", "--- FAIL: TestRefundRounding", "refund_test.go:42: got 1999 want 2000"} {
		if !strings.Contains(tests.Text(), want) {
			t.Errorf("the wrapped runner's output lacks %q:\n%s", want, tests.Text())
		}
	}
	if tests.IsError() || strings.Contains(tests.Text(), "TestCase0100") {
		t.Errorf("the wrapped runner's output (error %t):\n%s", tests.IsError(), tests.Text())
	}
	if len(e) != 2 {
		t.Errorf("stored %d outputs, want the seq's and the runner's", len(e))
	}
}

// (b) A compression forced at the second, resumed prompt (a tiny
// model.compressionThreshold) ends with ctxkeep's restore block in the
// next request, after the CLI's <state_snapshot>: the decision the model
// announced, and the failing command with the cause of its failure.
func TestGeminiRestoresAfterCompression(t *testing.T) {
	h := geminitest.New(t)
	h.CompressionThreshold = 0.0001
	ck := newGeminiCtxkeep(t, h)
	ck.run("install", "--agent", "gemini")
	writeScript(t, h.Project, "test.sh", "=== RUN   TestRefundRounding\n--- FAIL: TestRefundRounding (0.00s)\n    refund_test.go:42: got 1999 want 2000\nFAIL\n", 1)
	const decision = "We decided to round refunds half-even, because the ledger rounds that way."
	const summary = "<state_snapshot>\nGEMINI-SUMMARY: the user asked to fix the refund rounding.\n</state_snapshot>"
	h.API.SetSummary(summary)
	h.API.Script(
		fakegemini.Shell("call_test", "./test.sh"),
		fakegemini.Say(decision).Then(fakegemini.Shell("call_next", "echo checking")),
		fakegemini.Say("first prompt done"),
	)
	first := h.Run("fix the refund rounding")
	if h.API.Last(fakegemini.Summary) != nil {
		t.Fatal("compressed within the first prompt")
	}
	// Watch: past the (tiny) compression point, the warning reaches the
	// model with the tool's result (AfterTool's additionalContext, which
	// the CLI appends to it in <hook_context>), and the user on stderr.
	if resp, ok := h.API.Last(fakegemini.Main).ToolResponse("call_test"); !ok ||
		!strings.Contains(resp.Text(), "<hook_context>ctxkeep: the context is at 90% of the point where Gemini CLI compacts it automatically") ||
		!strings.Contains(resp.Text(), "suggest the user run /compress") {
		t.Errorf("the model got no warning with the result (found %t): %+v", ok, resp)
	}
	if !strings.Contains(first.Stderr, "Hook system message: ctxkeep: context ") {
		t.Errorf("the user got no warning:\n%s", first.Stderr)
	}
	// A resume in another minute than the session began leaves a stray chat
	// named for that minute, which SessionStart names, while the
	// conversation goes on in the first: make it so whatever the clock says,
	// the first chat named for a minute long past.
	chat := h.Chat(first.SessionID)
	if err := os.Rename(chat, filepath.Join(filepath.Dir(chat), "session-2000-01-01T00-00-"+first.SessionID[:8]+".jsonl")); err != nil {
		t.Fatal(err)
	}
	h.API.Script(fakegemini.Shell("call_post", "echo totals posted"), fakegemini.Say("second prompt done"))
	h.Resume("now post the totals")
	if strays, _ := filepath.Glob(filepath.Join(filepath.Dir(chat), "session-*-"+first.SessionID[:8]+".jsonl")); len(strays) != 2 {
		t.Errorf("the resume left no stray chat: %v", strays)
	}
	// With so low a threshold the CLI compresses again after the tool call
	// of the resumed prompt, asking for the snapshot updated: the first
	// compression is the one at the prompt.
	sums := h.API.RequestsOf(fakegemini.Summary)
	if len(sums) == 0 {
		t.Fatal("no compression at the resumed prompt")
	}
	after := h.API.After(sums[0].Seq, fakegemini.Main)
	if after == nil {
		t.Fatal("no request after the compression")
	}
	// The CLI keeps no hook's edit of a request in its history: the block
	// goes into every request of the compressed history (the one after the
	// tool call too), and the chat never holds it.
	if next := h.API.After(after.Seq, fakegemini.Main); next == nil || !next.Contains("ctxkeep restored this session's working state") {
		t.Errorf("the request after the tool call lacks the restore block")
	}
	if chat, _ := os.ReadFile(h.Chat(first.SessionID)); strings.Contains(string(chat), "ctxkeep restored this session") {
		t.Errorf("the chat holds the restore block")
	}
	var block string
	snapshotAt, blockAt := -1, -1
	for i, text := range after.Texts("user") {
		if strings.Contains(text, "GEMINI-SUMMARY") {
			snapshotAt = i
		}
		if k := strings.Index(text, "ctxkeep restored this session's working state"); k >= 0 {
			blockAt, block = i, text[k:]
		}
	}
	if blockAt < 0 || blockAt != snapshotAt {
		t.Fatalf("snapshot in user text %d, restore block in %d (want the same, after it):\n%v", snapshotAt, blockAt, after.Texts("user"))
	}
	for _, want := range []string{"round refunds half-even", "./test.sh", "--- FAIL: TestRefundRounding", "refund_test.go:42: got 1999 want 2000"} {
		if !strings.Contains(block, want) {
			t.Errorf("the restore block lacks %q:\n%s", want, block)
		}
	}
	// The archive holds the session, of Gemini CLI, the snapshot too.
	var found struct {
		Results []struct {
			Agent     string `json:"agent"`
			SessionID string `json:"session_id"`
		} `json:"results"`
	}
	ck.runJSON(&found, "search", "refund rounding")
	if len(found.Results) == 0 || found.Results[0].Agent != "gemini" || found.Results[0].SessionID != first.SessionID {
		t.Errorf("search: %+v", found)
	}
	// `ctxkeep context` tells the usage of the Gemini session, each
	// compression counted.
	report := ck.run("context", first.SessionID[:8])
	compressions := fmt.Sprintf("compressions %d", len(sums))
	for _, want := range []string{"session " + first.SessionID + " (Gemini CLI, gemini-2.5-pro)", compressions} {
		if !strings.Contains(report, want) {
			t.Errorf("context lacks %q:\n%s", want, report)
		}
	}
}

// (c) One archive for all three clients: a Gemini CLI session's step and
// a Codex session's, then a later Claude Code session in the same project
// whose model runs `ctxkeep search` and finds both, each named by its
// client. Plain install sets up all three, found on this machine by their
// folders.
func TestClaudeCodeFindsAGeminiStep(t *testing.T) {
	claude := clienttest.New(t)
	gm := geminitest.NewAt(t, claude.Home, claude.Project)
	cx := codextest.NewAt(t, claude.Home, claude.Project)
	if err := os.MkdirAll(filepath.Join(claude.Home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	ck := newGeminiCtxkeep(t, gm)
	ck.env = append(ck.env, "CODEX_HOME="+cx.CodexHome)
	out := ck.run("install")
	if !strings.Contains(out, "found Claude Code, Codex and Gemini CLI: setting up all three") ||
		!strings.Contains(out, "(Gemini CLI)") || !strings.Contains(out, "(Codex)") || !strings.Contains(out, "(user settings)") {
		t.Fatalf("install said:\n%s", out)
	}

	writeScript(t, gm.Project, "zephyr.sh", failingLog(400)+"zephyr limiter overflow at burst 512\n", 1)
	gm.API.Script(fakegemini.Shell("call_zephyr", "./zephyr.sh"), fakegemini.Say("The zephyr limiter overflows at bursts of 512."))
	geminiRun := gm.Run("find why the zephyr limiter overflows")
	stored := onlyEntry(t, ck, geminiRun.SessionID)

	writeScript(t, cx.Project, "gust.sh", failingLog(400)+"zephyr gust detector stalls at burst 1024\n", 1)
	cx.API.Script(fakeresponses.Exec("call_gust", "./gust.sh"), fakeresponses.Say("The zephyr gust detector stalls at bursts of 1024."))
	codexRun := cx.Run("find why the zephyr gust detector stalls")

	claude.Setenv("PATH", testbin.Dir(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	claude.API.Script(fakeapi.Bash("toolu_search", "ctxkeep search zephyr burst"), fakeapi.Say("found it"))
	claude.Run("what did we find about the zephyr limiter?")
	found, ok := claude.API.Last(fakeapi.Main).ToolResult("toolu_search")
	if !ok || !strings.Contains(found, "session "+geminiRun.SessionID[:8]) || !strings.Contains(found, "· Gemini CLI") ||
		!strings.Contains(found, "session "+codexRun.SessionID[:8]) || !strings.Contains(found, "· Codex") {
		t.Fatalf("the Claude Code session's search gave (found %v):\n%s", ok, found)
	}
	var res struct {
		Results []struct {
			SessionID string `json:"session_id"`
			Agent     string `json:"agent"`
		} `json:"results"`
	}
	ck.runJSON(&res, "search", "zephyr", "burst")
	agents := map[string]string{} // session → agent
	for _, r := range res.Results {
		agents[r.SessionID] = r.Agent
	}
	if len(agents) != 3 || agents[geminiRun.SessionID] != "gemini" || agents[codexRun.SessionID] != "codex" ||
		!slices.Contains(slices.Collect(maps.Values(agents)), "claude-code") {
		t.Errorf("search --json: %+v", res.Results)
	}
	if got := ck.run("show", stored.ID, "--grep", "zephyr"); !strings.Contains(got, "zephyr limiter overflow at burst 512") {
		t.Errorf("show --grep: %q", got)
	}
}

// (d) Installing into a Gemini home whose settings.json has the user's
// own settings and hooks keeps them (they still run), doctor says
// ctxkeep's are all there; uninstall gives the file back byte for byte,
// and the user's hooks still run.
func TestGeminiInstallKeepsTheUsersHooks(t *testing.T) {
	h := geminitest.New(t)
	ck := newGeminiCtxkeep(t, h)
	marker := filepath.Join(h.Home, "user-hook-ran")
	// Written by hand: four spaces, a key order of its own.
	userSettings := fmt.Sprintf(`{
    "ui": {"theme": "GitHub"},
    "hooks": {
        "AfterTool": [
            {"matcher": "run_shell_command", "hooks": [{"name": "mine", "type": "command", "command": "echo post >> %s", "timeout": 30000}]}
        ],
        "AfterAgent": [{"hooks": [{"type": "command", "command": "echo stop >> %s"}]}]
    }
}
`, marker, marker)
	if err := os.WriteFile(h.SettingsFile(), []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	out := ck.run("install")
	if !strings.Contains(out, "found Gemini CLI (no Claude Code)") || !strings.Contains(out, "installed ctxkeep's hooks for 8 events") {
		t.Fatalf("install said:\n%s", out)
	}
	// The hooks run ctxkeep-hook, the lean executable beside ctxkeep, as
	// Claude Code's and Codex's do; doctor checks it is of ctxkeep's version.
	if settings, _ := os.ReadFile(h.SettingsFile()); !strings.Contains(string(settings), claudecode.ShellQuote(testbin.HookPath(t))+" hook --agent gemini") {
		t.Errorf("settings.json after install:\n%s", settings)
	}
	if doctor := ck.run("doctor"); !strings.Contains(doctor, "8/8 events in "+gemini.SettingsFile(h.GeminiHome)) {
		t.Errorf("doctor:\n%s", doctor)
	}
	h.API.Script(fakegemini.Shell("call_1", "seq 1 20000"), fakegemini.Say("done"))
	res := h.Run("count")
	if data, _ := os.ReadFile(marker); string(data) != "post\nstop\n" {
		t.Errorf("the user's hooks wrote %q", data)
	}
	onlyEntry(t, ck, res.SessionID)
	if resp, _ := h.API.Last(fakegemini.Main).ToolResponse("call_1"); resp == nil || !strings.HasPrefix(resp.Text(), "[ctxkeep]") {
		t.Errorf("the model saw %+v", resp)
	}

	ck.run("uninstall", "--agent", "gemini")
	if after, _ := os.ReadFile(h.SettingsFile()); string(after) != userSettings {
		t.Errorf("settings.json after uninstall:\n%s\nwant, byte for byte:\n%s", after, userSettings)
	}
	os.Remove(marker)
	h.API.Script(fakegemini.Shell("call_2", "seq 1 20000"), fakegemini.Say("done"))
	h.Run("count again")
	if data, _ := os.ReadFile(marker); string(data) != "post\nstop\n" {
		t.Errorf("after uninstall the user's hooks wrote %q", data)
	}
	if resp, _ := h.API.Last(fakegemini.Main).ToolResponse("call_2"); resp == nil || strings.HasPrefix(resp.Text(), "[ctxkeep]") {
		t.Errorf("ctxkeep still ran after uninstall: %+v", resp)
	}
}

// (e) The file tools' real payloads: a large read_file result and a large
// grep_search result reach the model as ctxkeep's views; the file comes
// back exact with `ctxkeep show`, the matches with their lines.
func TestGeminiFileToolsAreSwappedOut(t *testing.T) {
	h := geminitest.New(t)
	ck := newGeminiCtxkeep(t, h)
	ck.run("install", "--agent", "gemini")
	var src strings.Builder
	src.WriteString("package ledger\n\n")
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&src, "func ledgerRow%04d() int { return %d } // reconciled against the bank feed\n", i, i)
	}
	path := filepath.Join(h.Project, "ledger.go")
	if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	h.API.Script(
		fakegemini.Call("call_read", "read_file", map[string]string{"file_path": path}),
		fakegemini.Call("call_grep", "grep_search", map[string]string{"pattern": "ledgerRow1[0-9]{3}"}),
		fakegemini.Say("done"),
	)
	res := h.Run("read the ledger")
	last := h.API.Last(fakegemini.Main)
	for _, id := range []string{"call_read", "call_grep"} {
		resp, ok := last.ToolResponse(id)
		if !ok || !strings.HasPrefix(resp.Text(), "[ctxkeep] ") || len(resp.Text()) > 20000 {
			t.Errorf("%s: the model got (found %t): %+v", id, ok, resp)
		}
	}
	if last.Contains("ledgerRow1234() int") {
		t.Error("the last request carries the file or the matches")
	}
	byTool := map[string]entry{}
	for _, e := range ck.entries(res.SessionID) {
		byTool[e.Tool] = e
	}
	read, grep := byTool["Read"], byTool["Grep"]
	if len(byTool) != 2 || read.ID == "" || grep.ID == "" {
		t.Fatalf("stored: %+v", byTool)
	}
	if got := ck.run("show", read.ID); got != src.String() {
		t.Errorf("`ctxkeep show` of the read gave %d bytes, the file has %d", len(got), src.Len())
	}
	// The CLI's grep gives the first 100 matches, grouped by file: the view
	// counts them so.
	if view, _ := last.ToolResponse("call_grep"); view == nil || !strings.Contains(view.Text(), "100 matching lines in 1 files; most matches: ledger.go (100)") {
		t.Errorf("the grep view: %+v", view)
	}
	if got := ck.run("show", grep.ID, "--grep", "ledgerRow1050"); !strings.Contains(got, "ledgerRow1050() int") {
		t.Errorf("show --grep of the matches: %q", got)
	}
}
