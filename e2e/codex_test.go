package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/codextest"
	"github.com/ctxkeep/ctxkeep/internal/fakeresponses"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// The real Codex CLI (0.169.0, scripts/install-codex.sh) against the fake
// Responses API, with ctxkeep installed as a user installs it: every run
// is without --dangerously-bypass-hook-trust, so ctxkeep's hooks run only
// because install trusted them the way Codex itself does.

func newCodexCtxkeep(t *testing.T, h *codextest.Harness) *ctxkeep {
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
