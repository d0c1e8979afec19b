//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// The hook exits 0 whatever the client does with its end of the pipes.
// These run the real binary, since both are about the process: how it
// dies on a signal and when it stops reading.

// guard bounds a test that would otherwise hang on the bug it checks; it
// is no measure of speed.
const guard = 60 * time.Second

// wrapEvent is a PreToolUse event the hook always answers (a test run in
// bypassPermissions mode is rewritten through the wrapper), so a test can
// tell a reply from none.
func wrapEvent(t *testing.T) []byte {
	ev := map[string]any{
		"session_id": "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10", "transcript_path": "/h/.claude/projects/-p/0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10.jsonl",
		"cwd": "/p", "hook_event_name": "PreToolUse", "permission_mode": "bypassPermissions", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "go test ./..."}, "tool_use_id": "toolu_pipe",
	}
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// hookCommand prepares `ctxkeep hook` in a fresh home, killed at guard.
func hookCommand(t *testing.T, extraEnv ...string) (*exec.Cmd, string, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, testbin.Path(t), "hook")
	cmd.Env = append([]string{"HOME=" + home, "CTXKEEP_HOME=" + filepath.Join(home, "data"), "PATH=" + os.Getenv("PATH")}, extraEnv...)
	return cmd, filepath.Join(home, "data"), ctx
}

// A client that closed its end of stdout before the reply: the write
// fails, and the hook still exits 0 (not 141, killed by SIGPIPE).
func TestHookExitsZeroWhenStdoutIsClosed(t *testing.T) {
	cmd, data, _ := hookCommand(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd.Stdin, cmd.Stdout = bytes.NewReader(wrapEvent(t)), w
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook with a closed stdout: %v", err)
	}
	// It did get as far as the reply: the wrapper's spool spec is written.
	if _, err := os.Stat(filepath.Join(data, "spool", "toolu_pipe.json")); err != nil {
		t.Fatalf("the hook did not reach its reply: %v", err)
	}
}

// runWithOpenStdin runs the hook with data written to a stdin it never
// closes, and returns its stdout and how it ended.
func runWithOpenStdin(t *testing.T, data []byte, extraEnv ...string) (stdout, home string, err error) {
	t.Helper()
	cmd, home, ctx := hookCommand(t, extraEnv...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout = r, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatal("the hook waited for stdin to close")
	}
	return out.String(), home, err
}

// A client that keeps stdin open after a whole payload gets its reply
// without closing it: the hook stops reading at the end of the object.
func TestHookAnswersWithoutWaitingForEOF(t *testing.T) {
	out, _, err := runWithOpenStdin(t, append(wrapEvent(t), '\n'))
	if err != nil || !strings.Contains(out, `"updatedInput"`) {
		t.Fatalf("exit %v, stdout %q", err, out)
	}
}

// A client that sends part of a payload and never more: the hook gives up
// after limits.hook_input_wait and exits 0 with no reply.
func TestHookGivesUpOnAnUnfinishedPayload(t *testing.T) {
	payload := wrapEvent(t)
	out, data, err := runWithOpenStdin(t, payload[:len(payload)/2], "CTXKEEP_LIMITS_HOOK_INPUT_WAIT=200ms")
	if err != nil || out != "" {
		t.Fatalf("exit %v, stdout %q", err, out)
	}
	log, _ := os.ReadFile(filepath.Join(data, "ctxkeep.log"))
	if !strings.Contains(string(log), "limits.hook_input_wait") {
		t.Fatalf("log: %s", log)
	}
}
