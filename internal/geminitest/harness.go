// Package geminitest runs the real Gemini CLI, pinned to Version, against
// the fake Gemini API of internal/fakegemini, in a throwaway HOME: the
// sibling of internal/clienttest and internal/codextest for the third
// agent.
//
// The harness's own settings (the API key auth, the pinned model, the
// compression threshold, no telemetry nor update check) go in a system
// settings file of its own (GEMINI_CLI_SYSTEM_SETTINGS_PATH), so that
// ~/.gemini/settings.json belongs to the test and to ctxkeep's install,
// as it would to a user. 0.61.0 skips a system settings file in a folder
// that others may write to, such as /tmp, and reads no auth type from a
// project's settings: so that file lives under the user's cache folder.
// Hooks there are run by the real client; the fake records what the
// model would have seen; the chat file is the client's // own.
//
// Tests skip when the client is not installed (scripts/install-gemini.sh),
// and fail instead when CI=true.
package geminitest

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

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakegemini"
)

// DefaultTimeout bounds one run of the client.
const DefaultTimeout = 120 * time.Second

// Harness runs the client in a sandbox: a fake API, a temporary HOME and a
// project folder (a git work tree) inside it. It is not safe for
// concurrent use; parallel tests each make their own.
type Harness struct {
	API        *fakegemini.Server
	Bin        string        // the client
	Home       string        // HOME
	GeminiHome string        // HOME/.gemini: settings.json, tmp/<project>/chats/
	Project    string        // the working directory of every run
	Timeout    time.Duration // per run; DefaultTimeout unless changed
	// CompressionThreshold is model.compressionThreshold (a fraction of
	// the model's limit): a tiny one makes the CLI compress at the next
	// prompt. 0 leaves the CLI's default.
	CompressionThreshold float64

	t      testing.TB
	tmp    string
	system string // the folder of the system settings
	vars   map[string]string
	runs   int
}

// New makes a harness, skipping the test when the client is not installed
// (see Binary). Everything it creates is removed when the test ends.
func New(t testing.TB) *Harness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return NewAt(t, filepath.Join(root, "home"), filepath.Join(root, "home", "project"))
}

// NewAt is New with a HOME and a project folder given: those of another
// client's harness, for sessions of several clients in one project. The
// project is made a git work tree, so that it is the project of every
// folder below it.
func NewAt(t testing.TB, home, project string) *Harness {
	t.Helper()
	bin := Binary(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	system, err := systemDir(t)
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{
		system:     system,
		API:        fakegemini.Start(t),
		Bin:        bin,
		Home:       home,
		GeminiHome: filepath.Join(home, ".gemini"),
		Project:    project,
		Timeout:    DefaultTimeout,
		t:          t,
		tmp:        tmp,
		vars:       map[string]string{},
	}
	for _, dir := range []string{h.Project, h.GeminiHome, filepath.Join(h.Project, ".git")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(h.logRequestsOnFailure)
	return h
}

// Setenv sets an environment variable for the following runs.
func (h *Harness) Setenv(key, value string) { h.vars[key] = value }

// SettingsFile is the user's settings.json, where ctxkeep installs.
func (h *Harness) SettingsFile() string { return filepath.Join(h.GeminiHome, "settings.json") }

// SystemSettings is the harness's own settings file.
func (h *Harness) SystemSettings() string { return filepath.Join(h.system, "settings.json") }

// writeSystemSettings points the client at the fake (gemini-cli-hooks.md):
// API-key auth (the base URL alone would select the "gateway" auth, which
// 0.61.0 rejects), the model pinned (no router call), the threshold.
func (h *Harness) writeSystemSettings() {
	h.t.Helper()
	model := map[string]any{"name": fakegemini.Model}
	if h.CompressionThreshold > 0 {
		model["compressionThreshold"] = h.CompressionThreshold
	}
	s := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"model":    model,
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	}
	data, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(h.SystemSettings(), data, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// Run runs the client non-interactively on prompt (extra arguments such as
// "--resume", "latest" go before it). It fails the test unless the client
// exits 0.
func (h *Harness) Run(prompt string, extra ...string) *Result {
	h.t.Helper()
	res := h.TryRun(prompt, extra...)
	if res.ExitCode != 0 {
		h.t.Fatalf("%s failed: exit code %d\nstderr:\n%s", res, res.ExitCode, tail(res.Stderr, 4000))
	}
	return res
}

// Resume runs a second prompt in the latest session of the project.
func (h *Harness) Resume(prompt string) *Result {
	h.t.Helper()
	return h.Run(prompt, "--resume", "latest")
}

// TryRun is Run for runs that may fail. The client runs as
//
//	gemini --skip-trust --yolo --output-format json EXTRA… -p PROMPT </dev/null
//
// in the project folder, with an environment built from scratch.
func (h *Harness) TryRun(prompt string, extra ...string) *Result {
	h.t.Helper()
	h.writeSystemSettings()
	h.runs++
	args := append([]string{"--skip-trust", "--yolo", "--output-format", "json"}, extra...)
	args = append(args, "-p", prompt)
	res := &Result{Run: h.runs, Args: args}
	h.t.Cleanup(func() {
		if h.t.Failed() {
			h.t.Logf("%s stderr:\n%s", res, tail(res.Stderr, 8000))
		}
	})
	ctx, cancel := context.WithTimeout(h.t.Context(), h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	cmd.Dir = h.Project
	cmd.Env = h.environ()
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	clienttest.KillGroupOnCancel(cmd)

	start := time.Now()
	err := cmd.Run()
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.parse()
	h.t.Logf("%s: exit code %d after %v", res, res.ExitCode, res.Duration.Round(time.Millisecond))
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		h.t.Fatalf("%s did not finish within %v\nstderr:\n%s", res, h.Timeout, tail(res.Stderr, 4000))
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case err != nil:
		h.t.Fatalf("%s: %v", res, err)
	}
	return res
}

// environ is the client's whole environment.
func (h *Harness) environ() []string {
	vars := map[string]string{
		"PATH":                            os.Getenv("PATH"),
		"HOME":                            h.Home,
		"TMPDIR":                          h.tmp,
		"SHELL":                           "/bin/bash",
		"GEMINI_API_KEY":                  "fake-key",
		"GOOGLE_GEMINI_BASE_URL":          h.API.URL,
		"GEMINI_CLI_NO_RELAUNCH":          "true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": h.SystemSettings(),
		"NO_COLOR":                        "1",
	}
	maps.Copy(vars, h.vars)
	env := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// Chat returns the path of a session's chat file, or fails the test.
func (h *Harness) Chat(session string) string {
	h.t.Helper()
	if len(session) < 8 {
		h.t.Fatalf("session id %q", session)
	}
	// A resume in another minute than the session began leaves a stray
	// chat named for it; the conversation goes on in the first, the oldest.
	matches, _ := filepath.Glob(filepath.Join(h.GeminiHome, "tmp", "*", "chats", "session-*-"+session[:8]+".jsonl"))
	if len(matches) == 0 {
		h.t.Fatalf("no chat of session %s", session)
	}
	slices.SortFunc(matches, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	return matches[0]
}

func (h *Harness) logRequestsOnFailure() {
	if dir := os.Getenv(DumpEnv); dir != "" {
		h.dump(dir)
	}
	if !h.t.Failed() {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fake API received %d requests:", len(h.API.Requests()))
	for _, r := range h.API.Requests() {
		fmt.Fprintf(&b, "\n  #%d %s %s %s: %d contents", r.Seq, r.Kind, r.Method, r.Path, len(r.Contents))
	}
	h.t.Log(b.String())
}

// DumpEnv names a folder where, when it is set, a harness leaves the body
// of every request the fake received, to look at.
const DumpEnv = "GEMINITEST_DUMP"

func (h *Harness) dump(dir string) {
	dir = filepath.Join(dir, strings.ReplaceAll(h.t.Name(), "/", "_"))
	os.MkdirAll(dir, 0o755)
	for _, r := range h.API.Requests() {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("request-%02d-%s.json", r.Seq, r.Kind)), r.Body, 0o644)
	}
}

// Result is the outcome of one run of the client.
type Result struct {
	Run       int
	Args      []string
	Stdout    string // --output-format json: {"session_id", "response", "stats"}
	Stderr    string
	ExitCode  int
	Duration  time.Duration
	SessionID string
	Response  string // the model's final answer
}

func (r *Result) String() string { return fmt.Sprintf("gemini run #%d", r.Run) }

// parse reads the session id and the answer from the JSON on stdout.
func (r *Result) parse() {
	var out struct {
		SessionID string `json:"session_id"`
		Response  string `json:"response"`
	}
	start := strings.Index(r.Stdout, "{")
	if start < 0 {
		return
	}
	if json.Unmarshal([]byte(r.Stdout[start:]), &out) == nil {
		r.SessionID, r.Response = out.SessionID, out.Response
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// systemDir makes a folder for the system settings that only its owner
// may write to, up to the root: under the user's cache folder, removed
// when the test ends.
func systemDir(t testing.TB) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	parent := filepath.Join(cache, "ctxkeep-geminitest")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, "system-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir, nil
}
