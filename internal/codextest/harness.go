// Package codextest runs the real Codex CLI, pinned to Version, against the
// fake Responses API of internal/fakeresponses, in a throwaway HOME and
// CODEX_HOME: internal/clienttest's sibling for the other agent.
//
// Hooks a test installs into the temporary $CODEX_HOME/hooks.json are run
// by the real client (only once trusted: codex-hooks.md §4), the fake
// records what the model would have seen, and the rollout file is the
// client's own.
//
// Tests skip when the client is not installed (scripts/install-codex.sh),
// and fail instead when CI=true.
package codextest

import (
	"bytes"
	"context"
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
	"github.com/ctxkeep/ctxkeep/internal/fakeresponses"
)

// DefaultTimeout bounds one run of the client.
const DefaultTimeout = 120 * time.Second

// Model is the model the runs ask for: a slug of the client's bundled
// catalog, so that it knows the model's window (codex-hooks.md §2).
const Model = "gpt-5.5"

// Harness runs the client in a sandbox: a fake API, a temporary HOME with
// CODEX_HOME in it, and a project folder (a git repository) inside it. It
// is not safe for concurrent use; parallel tests each make their own.
type Harness struct {
	API       *fakeresponses.Server
	Bin       string        // the client binary
	Home      string        // HOME
	CodexHome string        // CODEX_HOME: config.toml, hooks.json, sessions/
	Project   string        // the working directory of every run
	Timeout   time.Duration // per run; DefaultTimeout unless changed
	// Config is added to config.toml after the provider settings (TOML
	// top-level keys, e.g. "model_auto_compact_token_limit = 5000").
	Config string

	t    testing.TB
	tmp  string
	vars map[string]string
	runs int
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
// client's harness, for sessions of both clients in one project.
// CODEX_HOME is HOME/.codex; the project is made a git work tree, so
// that it is the project of every folder below it.
func NewAt(t testing.TB, home, project string) *Harness {
	t.Helper()
	bin := Binary(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{
		API:       fakeresponses.Start(t),
		Bin:       bin,
		Home:      home,
		CodexHome: filepath.Join(home, ".codex"),
		Project:   project,
		Timeout:   DefaultTimeout,
		t:         t,
		tmp:       tmp,
		vars:      map[string]string{},
	}
	for _, dir := range []string{h.Project, h.CodexHome, filepath.Join(h.Project, ".git")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(h.logRequestsOnFailure)
	return h
}

// Setenv sets an environment variable for the following runs.
func (h *Harness) Setenv(key, value string) { h.vars[key] = value }

// configFile is where the runs' provider settings go. config.toml itself
// belongs to the test (and to ctxkeep's install, which records trust
// there), so the harness writes its settings at the start of each run and
// keeps whatever else is in the file.
func (h *Harness) ConfigFile() string { return filepath.Join(h.CodexHome, "config.toml") }

// providerConfig points the client at the fake (codex-hooks.md §2): a
// custom provider, so no WebSocket attempt and local compaction.
func (h *Harness) providerConfig() string {
	return fmt.Sprintf(`# codextest: provider settings
model = %q
model_provider = "fake"
%s

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
# codextest: end
`, Model, h.Config, h.API.URL)
}

// writeConfig puts the provider settings at the top of config.toml,
// replacing those of an earlier run and keeping the rest.
func (h *Harness) writeConfig() {
	h.t.Helper()
	old, err := os.ReadFile(h.ConfigFile())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		h.t.Fatal(err)
	}
	rest := string(old)
	if _, after, ok := strings.Cut(rest, "# codextest: end\n"); ok {
		rest = after
	}
	if err := os.WriteFile(h.ConfigFile(), []byte(h.providerConfig()+rest), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// Run runs `codex exec` on prompt with extra arguments (e.g. "resume",
// "--last" go before the prompt: use RunArgs). It fails the test unless the
// client exits 0.
func (h *Harness) Run(prompt string, extra ...string) *Result {
	h.t.Helper()
	res := h.TryRun(prompt, extra...)
	if res.ExitCode != 0 {
		h.t.Fatalf("%s failed: exit code %d\nstderr:\n%s", res, res.ExitCode, tail(res.Stderr, 4000))
	}
	return res
}

// TryRun is Run for runs that may fail. The client runs as
//
//	codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox EXTRA… PROMPT </dev/null
//
// in the project folder, with an environment built from scratch. Hooks
// only run when trusted: no --dangerously-bypass-hook-trust.
func (h *Harness) TryRun(prompt string, extra ...string) *Result {
	h.t.Helper()
	h.writeConfig()
	h.runs++
	args := append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}, extra...)
	args = append(args, prompt)
	res := &Result{Run: h.runs, Args: args}
	h.t.Cleanup(func() {
		if h.t.Failed() {
			h.t.Logf("%s stderr, its hook and warning lines:\n%s\nits end:\n%s", res, hookLines(res.Stderr), tail(res.Stderr, 8000))
		}
	})
	ctx, cancel := context.WithTimeout(h.t.Context(), h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	cmd.Dir = h.Project
	cmd.Env = h.environ()
	cmd.Stdin = nil // /dev/null: exec would otherwise wait for more input
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
		"PATH":         os.Getenv("PATH"),
		"HOME":         h.Home,
		"CODEX_HOME":   h.CodexHome,
		"TMPDIR":       h.tmp,
		"FAKE_API_KEY": "fake-key",
		"SHELL":        "/bin/bash",
	}
	maps.Copy(vars, h.vars)
	env := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// Rollout returns the path of a session's rollout file, or fails the test.
func (h *Harness) Rollout(session string) string {
	h.t.Helper()
	matches, _ := filepath.Glob(filepath.Join(h.CodexHome, "sessions", "*", "*", "*", "rollout-*-"+session+".jsonl"))
	if len(matches) != 1 {
		h.t.Fatalf("rollout of session %s: found %v", session, matches)
	}
	return matches[0]
}

func (h *Harness) logRequestsOnFailure() {
	if !h.t.Failed() {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fake API received %d requests:", len(h.API.Requests()))
	for _, r := range h.API.Requests() {
		fmt.Fprintf(&b, "\n  #%d %s %s %s: %d input items", r.Seq, r.Kind, r.Method, r.Path, len(r.Items()))
	}
	h.t.Log(b.String())
}

// Result is the outcome of one run of the client.
type Result struct {
	Run       int
	Args      []string
	Stdout    string // the final message
	Stderr    string // the client's transcript: "session id: …", "hook: PostToolUse Completed", …
	ExitCode  int
	Duration  time.Duration
	SessionID string // from the "session id:" line of the transcript
}

func (r *Result) String() string { return fmt.Sprintf("codex run #%d", r.Run) }

// parse reads the session id from the transcript on stderr.
func (r *Result) parse() {
	for _, line := range strings.Split(r.Stderr, "\n") {
		if id, ok := strings.CutPrefix(line, "session id: "); ok && r.SessionID == "" {
			r.SessionID = strings.TrimSpace(id)
		}
	}
}

// Hooks counts the hook runs the client reported, by event and status:
// "PostToolUse Completed", "Stop Failed", …
func (r *Result) Hooks() map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(r.Stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, "hook: "); ok && strings.Contains(rest, " ") {
			out[strings.TrimSpace(rest)]++
		}
	}
	return out
}

// hookLines are the lines of Codex's stderr that say what its hooks did
// and what went wrong, wherever they are: a failing run's tail may be a
// tool's output.
func hookLines(stderr string) string {
	var b strings.Builder
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "hook: ") || strings.Contains(line, " WARN ") || strings.Contains(line, " ERROR ") {
			b.WriteString("  " + tail(line, 400))
		}
	}
	return b.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
