package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/learned"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// pre runs a PreToolUse for a Bash command and returns the rewritten
// command ("" when not wrapped).
func (f *swapFixture) pre(mode, command string, extra map[string]any) string {
	f.t.Helper()
	input := map[string]any{"command": command, "description": "d"}
	for k, v := range extra {
		input[k] = v
	}
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PreToolUse",
		"permission_mode": mode, "tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_w1"}
	payload, _ := json.Marshal(ev)
	out := f.run(payload, handlers)
	if out == "" {
		return ""
	}
	var reply struct {
		Specific struct {
			UpdatedInput       map[string]any `json:"updatedInput"`
			PermissionDecision string         `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	json.Unmarshal([]byte(out), &reply)
	if reply.Specific.PermissionDecision != "allow" || reply.Specific.UpdatedInput["description"] != "d" {
		f.t.Fatalf("reply %s", out)
	}
	return reply.Specific.UpdatedInput["command"].(string)
}

func TestWrapperWrapsOnlyWhatItMayGrant(t *testing.T) {
	f := newSwapFixture(t)
	home := t.TempDir()
	f.vars["HOME"] = home
	if got := f.pre("bypassPermissions", "go test ./...", nil); !swap.IsWrapped(got) || swap.Unwrap(got) != "go test ./..." {
		t.Fatalf("bypass mode: %q", got)
	}
	if got := f.pre("default", "go test ./...", nil); got != "" {
		t.Fatalf("default mode without a rule wrapped: %q", got)
	}
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(go test:*)"]}}`), 0o600)
	if got := f.pre("default", "go test ./...", nil); !swap.IsWrapped(got) {
		t.Fatalf("default mode with an allow rule: %q", got)
	}
	for name, tc := range map[string]struct {
		mode, cmd string
		extra     map[string]any
	}{
		"compound in default mode": {"default", "go test ./... && rm -rf x", nil},
		"plan mode":                {"plan", "go test ./...", nil},
		"background":               {"bypassPermissions", "go test ./...", map[string]any{"run_in_background": true}},
		"not a runner":             {"bypassPermissions", "ls -la", nil},
		"already wrapped":          {"bypassPermissions", swap.Wrap("go test", "/x/ctxkeep", "/s/t"), nil},
	} {
		if got := f.pre(tc.mode, tc.cmd, tc.extra); got != "" {
			t.Errorf("%s: wrapped %q", name, got)
		}
	}
	f.vars["CTXKEEP_WRAPPER_ENABLED"] = "false"
	if got := f.pre("bypassPermissions", "go test ./...", nil); got != "" {
		t.Errorf("wrapper.enabled=false wrapped %q", got)
	}
}

// A command whose text would break a wrapper built around it is still
// one valid shell command wrapped; one that would not behave the same
// wrapped (it may end the shell, or leaves a job behind) runs as sent.
func TestWrapperSurvivesNastyCommands(t *testing.T) {
	f := newSwapFixture(t)
	bash, err := exec.LookPath("bash")
	if err != nil && os.Getenv("CI") == "true" {
		t.Fatal(err)
	}
	for _, cmd := range []string{"go test ./... \\", "go test ./... # }", "go test ./... <<EOF\nx\nEOF", "go test 'it\\'s"} {
		got := f.pre("bypassPermissions", cmd, nil)
		if swap.Unwrap(got) != cmd {
			t.Fatalf("%q: wrapped as %q", cmd, got)
		}
		if bash == "" {
			continue
		}
		check := exec.Command(bash, "-n")
		check.Stdin = strings.NewReader(got)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("%q wrapped: bash -n: %v\n%s", cmd, err, out)
		}
	}
	for _, cmd := range []string{"go test ./... &", "go test ./... || exit 1", "set -e; go test ./..."} {
		if got := f.pre("bypassPermissions", cmd, nil); got != "" {
			t.Errorf("%q: wrapped as %q", cmd, got)
		}
	}
}

func TestWrapperWrapsLearnedCommands(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CLAUDE_PROJECT_DIR"] = "/proj"
	if got := f.pre("bypassPermissions", "./scripts/e2e.sh --all", nil); got != "" {
		t.Fatalf("wrapped before learning: %q", got)
	}
	learned.Record(f.dirs().Learned(), "/proj", "./scripts/e2e.sh --fast", 50000, time.Now())
	if got := f.pre("bypassPermissions", "./scripts/e2e.sh --all", nil); !swap.IsWrapped(got) {
		t.Fatalf("learned command not wrapped: %q", got)
	}
	f.vars["CTXKEEP_WRAPPER_LEARN"] = "false"
	if got := f.pre("bypassPermissions", "./scripts/e2e.sh --all", nil); got != "" {
		t.Fatalf("wrapper.learn=false wrapped %q", got)
	}
}

// capture runs `ctxkeep capture` on a spool holding output of a
// command no condenser knows.
func (f *swapFixture) capture(output string, rc int) string {
	f.t.Helper()
	return f.captureOf("./scripts/e2e.sh --all", output, rc)
}

// captureOf runs `ctxkeep capture` on a spool holding command's output.
func (f *swapFixture) captureOf(command, output string, rc int) string {
	f.t.Helper()
	spool := filepath.Join(f.dirs().Spool(), "toolu_w1")
	os.MkdirAll(filepath.Dir(spool), 0o700)
	writeSpec(spool, captureSpec{SessionID: session, ToolUseID: "toolu_w1", TranscriptPath: f.transcript, Cwd: "/p/sub", Project: "/p", Command: command})
	os.WriteFile(spool+".out", []byte(output), 0o600)
	var out bytes.Buffer
	if code := Capture(f.env(), spool, rc, &out); code != 0 {
		f.t.Fatalf("capture exit %d", code)
	}
	if _, err := os.Stat(spool + ".out"); !os.IsNotExist(err) {
		f.t.Fatal("spool output not removed")
	}
	return out.String()
}

func TestCapture(t *testing.T) {
	f := newSwapFixture(t)
	if got := f.capture("ok  \tpkg\t0.1s\n", 0); got != "ok  \tpkg\t0.1s\n" {
		t.Fatalf("small output printed as %q", got)
	}
	big := strings.Repeat("=== RUN   TestX\n", 800) + "--- FAIL: TestX\nFAIL\n"
	got := f.capture(big, 1)
	if !strings.Contains(got, "exit status 1") || !strings.Contains(got, "L801: --- FAIL: TestX") || len(got) > 2500 {
		t.Fatalf("view:\n%s", got)
	}
	if es := f.entries(); len(es) != 1 || es[0].Chars != len(big) || *es[0].ExitCode != 1 || es[0].Input != "./scripts/e2e.sh --all" {
		t.Fatalf("entries %+v", es)
	}
	if l, _ := learned.Load(f.dirs().Learned()); l.Match("/p", "./scripts/e2e.sh --quick") == "" {
		t.Errorf("command not learned: %+v", l)
	}
}

// A failing test run below the Bash threshold, captured by the wrapper,
// is printed condensed: its failure with the cause, its counts and exit
// status, the passing tests folded; the original is stored exactly.
func TestCaptureCondenses(t *testing.T) {
	f := newSwapFixture(t)
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", i, i)
	}
	b.WriteString("=== RUN   TestRefund\n    refund_test.go:42: got 1999 want 2000\n--- FAIL: TestRefund (0.00s)\nFAIL\nexit status 1\nFAIL\texample.com/shop\t0.012s\n")
	text := b.String()
	got := f.captureOf("go test -v ./...", text, 1)
	for _, want := range []string{"[ctxkeep] go test output condensed", "passed tests: 60", "exit status 1",
		"    refund_test.go:42: got 1999 want 2000\n--- FAIL: TestRefund (0.00s)\n", "FAIL\texample.com/shop\t0.012s\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("printed output lacks %q:\n%s", want, got)
		}
	}
	if len(got) >= len(text)*7/10 {
		t.Errorf("printed %d of %d bytes", len(got), len(text))
	}
	es := f.entries()
	if len(es) != 1 || es[0].Chars != len(text) || es[0].Kind != swap.KindCondensed {
		t.Fatalf("entries %+v", es)
	}
	if data, err := f.openStore(t, store.Existing).Open(context.Background(), es[0].Hash); err != nil || string(data) != text {
		t.Fatalf("stored %q, %v", data, err)
	}
	if l, _ := learned.Load(f.dirs().Learned()); l.Match("/p", "go test ./...") != "" {
		t.Errorf("a small output's command learned as large: %+v", l)
	}
}

// Capture fails open: without a usable store the output is printed as the
// command produced it.
func TestCaptureFailsOpen(t *testing.T) {
	f := newFixture(t) // no index
	spool := filepath.Join(f.dirs().Spool(), "toolu_w1")
	os.MkdirAll(filepath.Dir(spool), 0o700)
	writeSpec(spool, captureSpec{SessionID: session, ToolUseID: "toolu_w1", TranscriptPath: "/h/.claude/projects/-p/" + session + ".jsonl", Command: "go test"})
	big := strings.Repeat("line\n", 3000)
	os.WriteFile(spool+".out", []byte(big), 0o600)
	var out bytes.Buffer
	Capture(f.env(), spool, 2, &out)
	if out.String() != big || !strings.Contains(f.log(), "capture:") {
		t.Fatalf("printed %d bytes; log %s", out.Len(), f.log())
	}
	// A spool path outside the spool folder is refused, and the output still shown.
	other := filepath.Join(t.TempDir(), "x")
	os.WriteFile(other+".out", []byte(big), 0o600)
	out.Reset()
	Capture(f.env(), other, 0, &out)
	if out.String() != big {
		t.Fatalf("outside spool: %d bytes", out.Len())
	}
}

// A wrapped command killed at its timeout never reached capture: its output
// is stored when the failure is reported, and the view given as context.
func TestFailureCollectsALeftoverSpool(t *testing.T) {
	f := newSwapFixture(t)
	spool := filepath.Join(f.dirs().Spool(), "toolu_w1")
	os.MkdirAll(filepath.Dir(spool), 0o700)
	os.WriteFile(spool+".out", []byte(strings.Repeat("still running…\n", 1000)+"panic: test timed out\n"), 0o600)
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUseFailure",
		"tool_name": "Bash", "tool_input": map[string]any{"command": swap.Wrap("go test ./...", "/x/ctxkeep", spool)},
		"tool_use_id": "toolu_w1", "error": "Exit code 143\nCommand timed out after 2m"}
	payload, _ := json.Marshal(ev)
	out := f.run(payload, handlers)
	if !strings.Contains(out, "cut short; ctxkeep kept all the output") || !strings.Contains(out, "L1001: panic: test timed out") || !strings.Contains(out, "exit status 143") {
		t.Fatalf("stdout %s; log %s", out, f.log())
	}
	if _, err := os.Stat(spool + ".out"); !os.IsNotExist(err) {
		t.Fatal("leftover spool not removed")
	}
}

// A failure the client cut (over ~10,000 characters) teaches the wrapper.
func TestLongFailureIsLearned(t *testing.T) {
	f := newSwapFixture(t)
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUseFailure",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "./run-integration --all"}, "tool_use_id": "toolu_1",
		"error": "Exit code 1\n" + strings.Repeat("x", 10000)}
	payload, _ := json.Marshal(ev)
	f.vars["CLAUDE_PROJECT_DIR"] = "/proj"
	if out := f.run(payload, handlers); out != "" {
		t.Fatalf("stdout %q", out)
	}
	if l, _ := learned.Load(f.dirs().Learned()); l.Match("/proj", "./run-integration --fast") == "" {
		t.Fatalf("not learned: %+v", l)
	}
}
