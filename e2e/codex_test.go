package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/codextest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
	"github.com/ctxkeep/ctxkeep/internal/fakeresponses"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// The real Codex CLI (0.169.0, scripts/install-codex.sh) against the fake
// Responses API, with ctxkeep installed as a user installs it: every run
// is without --dangerously-bypass-hook-trust, so ctxkeep's hooks run only
// because install trusted them the way Codex itself does.

// newCodexCtxkeep runs ctxkeep as the user of h, with generous deadlines.
func newCodexCtxkeep(t *testing.T, h *codextest.Harness) *ctxkeep {
	generousDeadlines(t, h.Home)
	return &ctxkeep{t: t, bin: testbin.Path(t), dir: h.Project,
		env: []string{"HOME=" + h.Home, "CODEX_HOME=" + h.CodexHome, "PATH=" + os.Getenv("PATH")}}
}

// failingLog is a test run of n lines with a failure and its cause in the
// middle, then a failing exit.
func failingLog(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		switch i {
		case n / 2:
			fmt.Fprintf(&b, "--- FAIL: TestRefundRounding (0.00s)\n    refund_test.go:42: got 1999 want 2000\n")
		default:
			fmt.Fprintf(&b, "=== RUN   TestCase%04d\n--- PASS: TestCase%04d (0.00s)\n", i, i)
		}
	}
	b.WriteString("FAIL\n")
	return b.String()
}

// writeScript writes a script to the project that prints text and exits
// with code.
func writeScript(t *testing.T, dir, name, text string, code int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("cat %s.txt\nexit %d\n", name, code)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// (a) A large shell output reaches the model as ctxkeep's view, with the
// failure, its cause and the exit status the rollout recorded, and comes
// back exact with `ctxkeep show`. One over Codex's own cut (about 40 KB,
// which hooks only see the head and tail of) is run through the wrapper,
// which keeps it whole.
func TestCodexLargeOutputIsSwappedOut(t *testing.T) {
	h := codextest.New(t)
	ck := newCodexCtxkeep(t, h)
	out := ck.run("install", "--agent", "codex")
	if !strings.Contains(out, "trusted them in "+codex.ConfigFile(h.CodexHome)) {
		t.Fatalf("install said:\n%s", out)
	}
	medium, large := failingLog(400), failingLog(4000) // ~20 KB, ~200 KB
	writeScript(t, h.Project, "medium.sh", medium, 1)
	writeScript(t, h.Project, "large.sh", large, 2)
	os.WriteFile(filepath.Join(h.Project, ".ctxkeep.toml"), []byte("[wrapper]\ncommands = [\"./large.sh\"]\n"), 0o644)

	h.API.Script(fakeresponses.Exec("call_medium", "./medium.sh"), fakeresponses.Exec("call_large", "./large.sh"), fakeresponses.Say("done"))
	res := h.Run("run the tests")
	ran := res.Hooks()
	// A replacement is a "block" decision: Codex reports it as Blocked.
	// The wrapped command's output arrives as its view, left as it is.
	if ran["PostToolUse Blocked"] != 1 || ran["PostToolUse Completed"] != 1 || ran["PreToolUse Completed"] != 2 {
		t.Errorf("hooks the client ran: %v", ran)
	}
	entries := ck.entries(res.SessionID)
	last := h.API.Last(fakeresponses.Main)
	for _, c := range []struct {
		id, original string
		exit         int
	}{{"call_medium", medium, 1}, {"call_large", large, 2}} {
		view, ok := last.ToolOutput(c.id)
		if !ok {
			t.Errorf("%s: no output in the last request", c.id)
			continue
		}
		for _, want := range []string{"[ctxkeep] Bash output swapped out", fmt.Sprintf("exit status %d", c.exit),
			"--- FAIL: TestRefundRounding", "refund_test.go:42: got 1999 want 2000", "ctxkeep show "} {
			if !strings.Contains(view, want) {
				t.Errorf("%s: the model's view lacks %q:\n%s", c.id, want, view)
			}
		}
		if len(view) > codex.MaxHookText+200 || strings.Contains(view, "Warning: truncated output") {
			t.Errorf("%s: the model saw %d characters:\n%s", c.id, len(view), view)
		}
		e, ok := entries[c.id]
		if !ok || e.ExitCode == nil || *e.ExitCode != c.exit {
			t.Errorf("%s: entry %+v", c.id, e)
			continue
		}
		got := ck.run("show", e.ID)
		if sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(c.original)) {
			t.Errorf("%s: `ctxkeep show %s` gave %d bytes that differ from the %d of the output", c.id, e.ID, len(got), len(c.original))
		}
	}
	for _, r := range h.API.RequestsOf(fakeresponses.Main) {
		if r.Contains("TestCase0100") {
			t.Fatalf("request #%d carries an original output", r.Seq)
		}
	}
	// Stop found the replacement in the rollout; the wrapped output was no
	// reply of a hook's, so there is nothing of it to check.
	if s := ck.stats(res.SessionID); s.Swap == nil || s.Swap.Applied != 1 || s.Swap.NotApplied != 0 || s.Swap.Unchecked != 0 {
		t.Errorf("replacements applied: %+v, want the 1 of call_medium", s.Swap)
	}
	// Replayed, the session counts the output ctxkeep replaced at its own
	// size, not at its view's (the wrapped one counts as the wrapper
	// printed it: without ctxkeep, Codex would have cut it).
	var replayed struct {
		Total struct {
			Calls       int `json:"calls"`
			Swapped     int `json:"swapped"`
			CharsBefore int `json:"chars_before"`
		} `json:"total"`
		Replaced int `json:"replaced_when_recorded"`
	}
	ck.runJSON(&replayed, "replay", res.SessionID, "--json")
	if replayed.Total.Calls != 2 || replayed.Total.Swapped != 1 || replayed.Replaced != 1 || replayed.Total.CharsBefore < len(medium) {
		t.Errorf("replay of the session: %+v", replayed)
	}
}

// (d) Installing into a Codex home that has the user's own hooks keeps
// them (they still run), ctxkeep's run without any trust flag, doctor says
// so; uninstall leaves the user's hooks as they were, still trusted.
func TestCodexInstallKeepsTheUsersHooks(t *testing.T) {
	h := codextest.New(t)
	ck := newCodexCtxkeep(t, h)
	marker := filepath.Join(h.Home, "user-hook-ran")
	userHooks := fmt.Sprintf(`{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "echo post >> %s", "timeout": 30}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo stop >> %s"}]}]}}`, marker, marker)
	if err := os.WriteFile(codex.HooksFile(h.CodexHome), []byte(userHooks), 0o600); err != nil {
		t.Fatal(err)
	}
	// The user trusted their hooks, as Codex's review does.
	hs, _ := codex.Handlers([]byte(userHooks))
	var trust strings.Builder
	for _, hd := range hs {
		fmt.Fprintf(&trust, "[hooks.state.%q]\ntrusted_hash = %q\n", hd.Key(codex.HooksFile(h.CodexHome)), hd.Hash())
	}
	os.WriteFile(h.ConfigFile(), []byte("# codextest: end\n"+trust.String()), 0o600)

	// Plain install finds Codex here (no Claude Code) and sets it up.
	out := ck.run("install")
	if !strings.Contains(out, "found Codex") || !strings.Contains(out, "installed ctxkeep's hooks for 7 events") {
		t.Fatalf("install said:\n%s", out)
	}
	if doctor := ck.run("doctor"); !strings.Contains(doctor, "7/7 events in "+codex.HooksFile(h.CodexHome)+", all trusted") {
		t.Errorf("doctor:\n%s", doctor)
	}
	writeScript(t, h.Project, "medium.sh", failingLog(400), 1)
	h.API.Script(fakeresponses.Exec("call_1", "./medium.sh"), fakeresponses.Say("done"))
	res := h.Run("run it")
	ran := res.Hooks()
	if ran["SessionStart Completed"] == 0 || ran["PostToolUse Completed"] != 1 || ran["PostToolUse Blocked"] != 1 || ran["Stop Completed"] != 2 {
		t.Errorf("hooks the client ran (the user's and ctxkeep's): %v\n%s", ran, res.Stderr)
	}
	if data, _ := os.ReadFile(marker); string(data) != "post\nstop\n" {
		t.Errorf("the user's hooks wrote %q", data)
	}
	if e := ck.entries(res.SessionID); len(e) != 1 {
		t.Errorf("ctxkeep's hooks stored %d outputs", len(e))
	}
	if view, _ := h.API.Last(fakeresponses.Main).ToolOutput("call_1"); !strings.Contains(view, "[ctxkeep]") {
		t.Errorf("the model saw %q", view)
	}

	ck.run("uninstall", "--agent", "codex")
	after, _ := os.ReadFile(codex.HooksFile(h.CodexHome))
	if !sameJSON(t, after, []byte(userHooks)) {
		t.Errorf("hooks.json after uninstall:\n%s", after)
	}
	cfg, _ := os.ReadFile(h.ConfigFile())
	if strings.Contains(string(cfg), "# ctxkeep") || !strings.Contains(string(cfg), trust.String()) {
		t.Errorf("config.toml after uninstall:\n%s", cfg)
	}
	os.Remove(marker)
	h.API.Script(fakeresponses.Exec("call_2", "./medium.sh"), fakeresponses.Say("done"))
	res = h.Run("run it again")
	if data, _ := os.ReadFile(marker); string(data) != "post\nstop\n" {
		t.Errorf("after uninstall the user's hooks wrote %q", data)
	}
	if view, _ := h.API.Last(fakeresponses.Main).ToolOutput("call_2"); strings.Contains(view, "[ctxkeep]") {
		t.Errorf("ctxkeep still ran after uninstall: %q", view)
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

// (b) An auto-compaction forced in the middle of a turn (a low
// model_auto_compact_token_limit, and a response that reports a context
// over it) ends with ctxkeep's restore block in the first request after
// the summary, right after it: the decision the model announced before,
// and the failing command with the cause of its failure.
func TestCodexRestoresAfterAutoCompaction(t *testing.T) {
	h := codextest.New(t)
	h.Config = "model_auto_compact_token_limit = 5000"
	ck := newCodexCtxkeep(t, h)
	ck.run("install", "--agent", "codex")
	writeScript(t, h.Project, "test.sh", "=== RUN   TestRefundRounding\n--- FAIL: TestRefundRounding (0.00s)\n    refund_test.go:42: got 1999 want 2000\nFAIL\n", 1)
	const decision = "We decided to round refunds half-even, because the ledger rounds that way."
	const summary = "CODEX-SUMMARY: the user asked to fix the refund rounding."
	h.API.SetSummary(summary)
	decide := fakeresponses.Say(decision)
	decide.Items = append(decide.Items, fakeresponses.Exec("call_next", "echo checking").Items...)
	h.API.Script(
		fakeresponses.Exec("call_test", "./test.sh"),
		decide.WithUsage(fakeresponses.Usage{InputTokens: 8000, OutputTokens: 50}), // over the limit: Codex compacts
		fakeresponses.Say("done"),
	)
	res := h.Run("fix the refund rounding")
	if log, _ := os.ReadFile(filepath.Join(h.Home, ".local", "state", "ctxkeep", "ctxkeep.log")); len(log) > 0 {
		t.Logf("ctxkeep.log:\n%s", log)
	}
	ran := res.Hooks()
	if ran["PreCompact Completed"] != 1 || ran["SessionStart Completed"] != 2 {
		t.Errorf("hooks the client ran: %v", ran)
	}
	if h.API.Last(fakeresponses.Compaction) == nil {
		t.Fatal("no compaction request")
	}
	// The first turn request after the compaction request.
	var after *fakeresponses.Request
	for _, r := range h.API.Requests() {
		if r.Kind == fakeresponses.Main && r.Seq > h.API.Last(fakeresponses.Compaction).Seq {
			after = r
			break
		}
	}
	if after == nil {
		t.Fatal("no request after the compaction")
	}
	items := after.Items()
	summaryAt, restoreAt := -1, -1
	for i, it := range items {
		text := it.Text()
		switch {
		case it.Type == "message" && it.Role == "user" && strings.Contains(text, summary):
			summaryAt = i
		case it.Type == "message" && it.Role == "developer" && strings.Contains(text, "ctxkeep restored this session's working state"):
			if strings.Contains(text, summary) {
				t.Errorf("the restore block repeats the summary as the model's reply:\n%s", text)
			}
			restoreAt = i
			for _, want := range []string{"round refunds half-even", "./test.sh", "--- FAIL: TestRefundRounding", "refund_test.go:42: got 1999 want 2000"} {
				if !strings.Contains(text, want) {
					t.Errorf("the restore block lacks %q:\n%s", want, text)
				}
			}
			if len(text) > codex.MaxHookText {
				t.Errorf("restore block of %d bytes, over Codex's cut", len(text))
			}
		}
	}
	if summaryAt < 0 || restoreAt != summaryAt+1 {
		t.Errorf("summary at %d, restore block at %d (want right after it) in %d items", summaryAt, restoreAt, len(items))
	}
	// The archive holds the turn and the client's summary, of Codex.
	var found struct {
		Results []struct {
			Agent string `json:"agent"`
			Kind  string `json:"kind"`
		} `json:"results"`
	}
	ck.runJSON(&found, "search", "refund rounding")
	if len(found.Results) == 0 || found.Results[0].Agent != "codex" {
		t.Errorf("search: %+v", found)
	}
	// `ctxkeep context` tells the usage of the Codex session.
	report := ck.run("context", res.SessionID)
	for _, want := range []string{"session " + res.SessionID + " (Codex 0.169.0", "compactions 1", "auto-compaction at 5,000"} {
		if !strings.Contains(report, want) {
			t.Errorf("context lacks %q:\n%s", want, report)
		}
	}
}

// (c) One archive for both clients: a Codex session's step, then a later
// Claude Code session in the same project whose model runs `ctxkeep
// search` and finds that step, named as Codex's. Plain install sets up
// both clients, found on this machine by their folders.
func TestClaudeCodeFindsACodexStep(t *testing.T) {
	claude := clienttest.New(t)
	cx := codextest.NewAt(t, claude.Home, claude.Project)
	if err := os.MkdirAll(filepath.Join(claude.Home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	ck := newCodexCtxkeep(t, cx)
	out := ck.run("install")
	if !strings.Contains(out, "found Claude Code and Codex: setting up both") || !strings.Contains(out, "(Codex)") || !strings.Contains(out, "(user settings)") {
		t.Fatalf("install said:\n%s", out)
	}

	writeScript(t, cx.Project, "zephyr.sh", failingLog(400)+"zephyr limiter overflow at burst 512\n", 1)
	cx.API.Script(fakeresponses.Exec("call_zephyr", "./zephyr.sh"), fakeresponses.Say("The zephyr limiter overflows at bursts of 512."))
	codexRun := cx.Run("find why the zephyr limiter overflows")
	entries := ck.entries(codexRun.SessionID)
	if len(entries) != 1 {
		t.Fatalf("the Codex session stored %d outputs", len(entries))
	}

	claude.Setenv("PATH", testbin.Dir(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	claude.API.Script(fakeapi.Bash("toolu_search", "ctxkeep search zephyr burst"), fakeapi.Say("found it"))
	claude.Run("what did we find about the zephyr limiter?")
	found, ok := claude.API.Last(fakeapi.Main).ToolResult("toolu_search")
	if !ok || !strings.Contains(found, "session "+codexRun.SessionID[:8]) || !strings.Contains(found, "· Codex") {
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
	// Both sessions of the project, each with its client.
	if len(agents) != 2 || agents[codexRun.SessionID] != "codex" || !slices.Contains(slices.Collect(maps.Values(agents)), "claude-code") {
		t.Errorf("search --json: %+v", res.Results)
	}
	// The exact output the view stood for comes back in the Claude Code
	// session's project as well.
	if got := ck.run("show", entries["call_zephyr"].ID, "--grep", "zephyr"); !strings.Contains(got, "zephyr limiter overflow at burst 512") {
		t.Errorf("show --grep: %q", got)
	}
}

// ctxkeep's idea of where Codex compacts is the client's own: a response
// just below the point ctxkeep computes leaves the context alone, and
// comes back to the model with ctxkeep's warning (from the tool call's
// PostToolUse, as a developer message); one just above it makes Codex
// compact.
func TestCodexThresholdIsTheClients(t *testing.T) {
	const window = 258400 // what Codex 0.169.0 records for gpt-5.5
	_, limit := codex.Thresholds(window, 0)
	for _, c := range []struct {
		tokens  int
		compact bool
	}{{int(limit) - 600, false}, {int(limit) + 600, true}} {
		h := codextest.New(t)
		ck := newCodexCtxkeep(t, h)
		ck.run("install", "--agent", "codex")
		h.API.Script(fakeresponses.Exec("call_1", "echo hi").WithUsage(fakeresponses.Usage{InputTokens: c.tokens, OutputTokens: 10}), fakeresponses.Say("done"))
		h.Run("go on")
		if compacted := h.API.Last(fakeresponses.Compaction) != nil; compacted != c.compact {
			t.Errorf("%d tokens (ctxkeep's threshold %d): the client compacted: %t", c.tokens, limit, compacted)
		}
		if c.compact {
			continue
		}
		warned := false
		for _, m := range h.API.Last(fakeresponses.Main).Messages("developer") {
			warned = warned || strings.Contains(m, "ctxkeep: the context is at 90% of the point where Codex compacts it automatically")
		}
		if !warned {
			t.Errorf("%d tokens: no warning in %q", c.tokens, h.API.Last(fakeresponses.Main).Messages("developer"))
		}
	}
}
