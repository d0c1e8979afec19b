// Package clienttest runs the real Claude Code client, pinned to Version,
// against the fake Messages API of internal/fakeapi, in a throwaway HOME.
//
// It exists so that ctxkeep can be tested end to end against the client it
// plugs into: hooks a test registers in the temporary ~/.claude/settings.json
// are run by the real client, the fake records what the model would have
// seen, and the transcript is the client's own.
//
// Tests skip when the client is not installed (scripts/install-claude-code.sh),
// and fail instead when CI=true.
package clienttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

// DefaultTimeout bounds one run of the client.
const DefaultTimeout = 120 * time.Second

// waitDelay is how long a run waits, after the client exits, for processes
// it left behind to close its stdout and stderr.
const waitDelay = 5 * time.Second

// Harness runs the client in a sandbox: a fake API, a temporary HOME, and a
// project folder inside it. It is not safe for concurrent use; parallel tests
// each make their own.
type Harness struct {
	API     *fakeapi.Server
	Bin     string        // the client binary
	Home    string        // the client's HOME: ~/.claude lives here
	Project string        // the working directory of every run, inside Home
	Timeout time.Duration // per run; DefaultTimeout unless changed
	// PermissionMode, when set, runs the client with --permission-mode
	// instead of --dangerously-skip-permissions, for tests of what the
	// client's permission checks allow.
	PermissionMode string

	t    testing.TB
	tmp  string            // the client's TMPDIR
	vars map[string]string // set by Setenv
	runs int
}

// New makes a harness, skipping the test when the client is not installed
// (see Binary). Everything it creates is removed when the test ends.
func New(t testing.TB) *Harness {
	t.Helper()
	bin := Binary(t)
	// The client names folders after the resolved path of the project.
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{
		API:     fakeapi.Start(t),
		Bin:     bin,
		Home:    filepath.Join(root, "home"),
		Project: filepath.Join(root, "home", "project"),
		Timeout: DefaultTimeout,
		t:       t,
		tmp:     filepath.Join(root, "tmp"),
		vars:    map[string]string{},
	}
	for _, dir := range []string{h.Project, h.tmp} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(h.logRequestsOnFailure)
	return h
}

// Setenv sets an environment variable for the following runs. It overrides
// the harness's own settings, PATH and HOME included.
func (h *Harness) Setenv(key, value string) {
	h.vars[key] = value
}

// WriteUserSettings writes settings, marshalled to JSON, to
// ~/.claude/settings.json in the harness's HOME: where ctxkeep registers its
// hooks. Pass a json.RawMessage to write JSON text as is.
func (h *Harness) WriteUserSettings(settings any) {
	h.t.Helper()
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	dir := filepath.Join(h.Home, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), data, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// Run runs the client on prompt in print mode, with extra arguments such as
// "--resume", id. It fails the test unless the client exits 0 and reports
// success.
func (h *Harness) Run(prompt string, args ...string) *Result {
	h.t.Helper()
	res := h.TryRun(prompt, args...)
	if res.ExitCode != 0 || res.IsError {
		h.t.Fatalf("%s failed: exit code %d, is_error %t, result %q", res, res.ExitCode, res.IsError, res.Text)
	}
	return res
}

// TryRun is Run for runs that may fail: it returns whatever the client did.
// Only a client that cannot be started or does not finish within Timeout
// fails the test.
//
// The client runs as
//
//	claude -p PROMPT --output-format stream-json --verbose --dangerously-skip-permissions ARGS…
//
// (--permission-mode PermissionMode instead of --dangerously-skip-permissions
// when PermissionMode is set)
// in the project folder, with an environment built from scratch: nothing of
// the developer's own HOME or ANTHROPIC_* variables leaks in.
func (h *Harness) TryRun(prompt string, args ...string) *Result {
	h.t.Helper()
	h.runs++
	res := &Result{Run: h.runs, Args: argv(prompt, h.PermissionMode, args)}
	h.t.Cleanup(func() {
		if h.t.Failed() {
			h.t.Log(res.debugDump())
		}
	})

	ctx, cancel := context.WithTimeout(h.t.Context(), h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, res.Args...)
	cmd.Dir = h.Project
	cmd.Env = h.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = waitDelay
	KillGroupOnCancel(cmd)

	start := time.Now()
	err := cmd.Run()
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.parseEvents()
	h.t.Logf("%s: exit code %d after %v", res, res.ExitCode, res.Duration.Round(time.Millisecond))

	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		h.t.Fatalf("%s did not finish within %v", res, h.Timeout)
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case err != nil:
		h.t.Fatalf("%s: %v", res, err)
	}
	return res
}

func argv(prompt, permissionMode string, extra []string) []string {
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose"}
	if permissionMode == "" {
		args = append(args, "--dangerously-skip-permissions")
	} else {
		args = append(args, "--permission-mode", permissionMode)
	}
	return append(args, extra...)
}

// environ is the client's whole environment: the variables reference §9
// gives for running against a mock, a private TMPDIR, PATH, and Setenv's.
func (h *Harness) environ() []string {
	vars := map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               h.Home,
		"TMPDIR":             h.tmp,
		"ANTHROPIC_BASE_URL": h.API.URL,
		"ANTHROPIC_API_KEY":  "sk-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_ERROR_REPORTING":                  "1",
		"IS_SANDBOX":                               "1", // lets --dangerously-skip-permissions run as root
	}
	maps.Copy(vars, h.vars)
	env := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// logRequestsOnFailure lists what the fake received, to debug a failed test.
func (h *Harness) logRequestsOnFailure() {
	if !h.t.Failed() {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fake API received %d requests:", len(h.API.Requests()))
	for _, r := range h.API.Requests() {
		fmt.Fprintf(&b, "\n  #%d %s %s %s: %d messages, last user text %q",
			r.Seq, r.Kind, r.Method, r.Path, len(r.Messages()), tail(r.LastUserText(), 120))
	}
	h.t.Log(b.String())
}
