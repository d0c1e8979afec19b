package clienttest_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

func TestBashToolThenManualCompaction(t *testing.T) {
	t.Parallel()
	h := clienttest.New(t)
	h.API.Script(
		fakeapi.Bash("toolu_hello", "echo hello-from-bash"),
		fakeapi.Say("bash said hello"),
	)

	first := h.Run("say hello with bash")
	if first.SessionID == "" || first.Text != "bash said hello" {
		t.Fatalf("session %q, result %q", first.SessionID, first.Text)
	}
	main := h.API.RequestsOf(fakeapi.Main)
	if len(main) != 2 {
		t.Fatalf("%d main-thread requests, want 2", len(main))
	}
	if got, ok := main[1].ToolResult("toolu_hello"); !ok || !strings.Contains(got, "hello-from-bash") {
		t.Errorf("tool result the model saw = %q, %v", got, ok)
	}

	h.API.SetSummary("The user asked for a greeting through bash.")
	compact := h.Run("/compact", "--resume", first.SessionID)
	if compact.SessionID != first.SessionID {
		t.Errorf("/compact ran in session %q, want %q", compact.SessionID, first.SessionID)
	}
	if n := len(h.API.RequestsOf(fakeapi.Summary)); n != 1 {
		t.Errorf("%d summarisation requests, want 1", n)
	}
	if n := len(h.Transcript(first.SessionID).Find("system", "compact_boundary")); n != 1 {
		t.Errorf("transcript has %d compact_boundary lines, want 1", n)
	}
}

// TestUsageDrivesAutoCompaction checks that the usage the fake reports is
// what the client measures its context by: with a 200k window, compaction
// starts above 200k - 20k - 13k = 167k tokens (reference §7.1). It needs a
// few rounds: with a single one the client gives up ("too_few_groups").
func TestUsageDrivesAutoCompaction(t *testing.T) {
	t.Parallel()
	h := clienttest.New(t)
	h.Setenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "200000")
	small := fakeapi.Usage{InputTokens: 1000, OutputTokens: 100}
	big := fakeapi.Usage{InputTokens: 1000, CacheReadInputTokens: 166000, OutputTokens: 100}
	h.API.Script(
		fakeapi.Bash("toolu_1", "echo one").WithUsage(small),
		fakeapi.Bash("toolu_2", "echo two").WithUsage(small),
		fakeapi.Bash("toolu_3", "echo three").WithUsage(big),
		fakeapi.Say("finished").WithUsage(small),
	)

	res := h.Run("grow the context")

	var kinds []string
	for _, r := range h.API.Requests() {
		kinds = append(kinds, r.Kind.String())
	}
	if want := []string{"main", "main", "main", "summary", "main"}; !slices.Equal(kinds, want) {
		t.Errorf("request kinds = %q, want %q", kinds, want)
	}
	if n := len(res.Events.Find("system", "compact_boundary")); n != 1 {
		t.Errorf("%d compact_boundary events, want 1", n)
	}
}

// hookMarker is what the recording hook prints: UserPromptSubmit output
// reaches the model as a system message.
const hookMarker = "hook-context-marker"

func TestHooksFromSettingsFire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		register func(h *clienttest.Harness, settings json.RawMessage) (args []string)
	}{
		{"user settings.json", func(h *clienttest.Harness, settings json.RawMessage) []string {
			h.WriteUserSettings(settings)
			return nil
		}},
		{"--settings flag", func(_ *clienttest.Harness, settings json.RawMessage) []string {
			return []string{"--settings", string(settings)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := clienttest.New(t)
			log := filepath.Join(t.TempDir(), "hooks.log")
			args := tc.register(h, recordingHookSettings(t, log))
			h.API.Script(fakeapi.Bash("toolu_hooked", "echo hooked"), fakeapi.Say("ok"))

			res := h.Run("hooked prompt", args...)

			checkHookInputs(t, readHookInputs(t, log), res.SessionID)
			first := h.API.RequestsOf(fakeapi.Main)[0]
			if !slices.ContainsFunc(first.SystemMessages(), func(s string) bool { return strings.Contains(s, hookMarker) }) {
				t.Errorf("the model did not see the UserPromptSubmit output; system messages: %q", first.SystemMessages())
			}
		})
	}
}

// recordingHookSettings writes a hook script that appends its stdin to log,
// and returns settings that run it on UserPromptSubmit and on PostToolUse of
// Bash.
func recordingHookSettings(t *testing.T, log string) json.RawMessage {
	t.Helper()
	script := filepath.Join(t.TempDir(), "record-hook.sh")
	body := "#!/bin/sh\n{ cat; echo; } >> " + shellQuote(log) + "\necho " + hookMarker + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	handler := []map[string]any{{"type": "command", "command": shellQuote(script), "timeout": 30}}
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{
		"UserPromptSubmit": []map[string]any{{"hooks": handler}},
		"PostToolUse":      []map[string]any{{"matcher": "Bash", "hooks": handler}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return settings
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

type hookInput struct {
	HookEventName string `json:"hook_event_name"`
	SessionID     string `json:"session_id"`
	Prompt        string `json:"prompt"`
	ToolName      string `json:"tool_name"`
	ToolUseID     string `json:"tool_use_id"`
}

func readHookInputs(t *testing.T, log string) []hookInput {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatalf("no hook ran: %v", err)
	}
	defer f.Close()
	var inputs []hookInput
	for dec := json.NewDecoder(f); ; {
		var in hookInput
		if err := dec.Decode(&in); errors.Is(err, io.EOF) {
			return inputs
		} else if err != nil {
			t.Fatalf("hook log: %v", err)
		}
		inputs = append(inputs, in)
	}
}

func checkHookInputs(t *testing.T, inputs []hookInput, sessionID string) {
	t.Helper()
	want := []hookInput{
		{HookEventName: "UserPromptSubmit", SessionID: sessionID, Prompt: "hooked prompt"},
		{HookEventName: "PostToolUse", SessionID: sessionID, ToolName: "Bash", ToolUseID: "toolu_hooked"},
	}
	if !slices.Equal(inputs, want) {
		t.Errorf("hook inputs = %+v\nwant          %+v", inputs, want)
	}
}

func TestTryRunReportsFailure(t *testing.T) {
	t.Parallel()
	h := clienttest.New(t)
	res := h.TryRun("hi", "--no-such-flag")
	if res.ExitCode == 0 {
		t.Errorf("exit code 0 with an unknown flag; stderr %q", res.Stderr)
	}
	if len(h.API.Requests()) != 0 {
		t.Errorf("the fake received %d requests", len(h.API.Requests()))
	}
}

func TestProjectKey(t *testing.T) {
	got := clienttest.ProjectKey("/tmp/Test_a.b/001 x")
	if want := "-tmp-Test-a-b-001-x"; got != want {
		t.Errorf("ProjectKey = %q, want %q", got, want)
	}
}

// TestBinaryUsesPlatformPackageWithoutPostinstall lays out what npm leaves
// when the wrapper's postinstall did not run: bin/claude.exe is a failing
// stub, and the binary sits in the platform-specific package.
func TestBinaryUsesPlatformPackageWithoutPostinstall(t *testing.T) {
	root := t.TempDir()
	scope := filepath.Join(root, ".cache", "claude-code", "node_modules", "@anthropic-ai")
	stub := filepath.Join(scope, "claude-code", "bin", "claude.exe")
	native := filepath.Join(scope, "claude-code-linux-x64", "claude")
	writeFile(t, filepath.Join(root, "go.mod"), "module example\n")
	writeFile(t, stub, "#!/bin/sh\necho 'Error: claude native binary not installed.' >&2\nexit 1\n")
	writeFile(t, native, "#!/bin/sh\necho '"+clienttest.Version+" (Claude Code)'\n")
	t.Setenv(clienttest.BinaryEnv, "")
	t.Chdir(filepath.Join(scope, "claude-code"))

	if got := clienttest.Binary(t); got != native {
		t.Errorf("Binary = %q, want %q", got, native)
	}
}

// writeFile writes an executable file, making its folder.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}
