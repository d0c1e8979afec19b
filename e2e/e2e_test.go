// Package e2e drives the real Claude Code client (pinned, installed by
// scripts/install-claude-code.sh) against the fake Messages API, with
// ctxkeep installed the way a user installs it, and asserts on what the
// model received and what ctxkeep recorded.
package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// ctxkeep runs the real binary as the user of a harness: same HOME, in
// the project folder, with a clean environment.
type ctxkeep struct {
	t   *testing.T
	bin string
	dir string   // the project
	env []string // HOME and PATH, and CODEX_HOME for Codex
}

func newCtxkeep(t *testing.T, h *clienttest.Harness) *ctxkeep {
	generousDeadlines(t, h.Home)
	return &ctxkeep{t: t, bin: testbin.Path(t), dir: h.Project, env: []string{"HOME=" + h.Home, "PATH=" + os.Getenv("PATH")}}
}

// run runs a ctxkeep command and fails the test if it fails.
func (c *ctxkeep) run(args ...string) string {
	c.t.Helper()
	out, stderr, err := c.try(args...)
	if err != nil {
		c.t.Fatalf("ctxkeep %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr)
	}
	return out
}

func (c *ctxkeep) try(args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// runJSON runs a command with --json and decodes its output into v.
func (c *ctxkeep) runJSON(v any, args ...string) {
	c.t.Helper()
	out := c.run(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("ctxkeep %v --json: %v\n%s", args, err, out)
	}
}

// sessionStats is the part of `ctxkeep stats --json` the tests read.
type sessionStats struct {
	ID       string `json:"session_id"`
	Client   string `json:"client_version"`
	Cwd      string `json:"cwd"`
	Events   int    `json:"events"`
	Failures int    `json:"failures"`
	ByEvent  []struct {
		Event string `json:"event"`
		Count int    `json:"count"`
	} `json:"by_event"`
	ByTool []struct {
		Tool  string `json:"tool"`
		Count int    `json:"count"`
	} `json:"by_tool"`
	Swap *struct {
		Entries    int `json:"entries"`
		Applied    int `json:"applied"`
		NotApplied int `json:"not_applied"`
		Unchecked  int `json:"unchecked"`
	} `json:"swap"`
}

func (c *ctxkeep) stats(session string) sessionStats {
	c.t.Helper()
	var report struct {
		Sessions []sessionStats `json:"sessions"`
	}
	c.runJSON(&report, "stats", "--session", session)
	if len(report.Sessions) != 1 {
		c.t.Fatalf("stats for %s: %d sessions", session, len(report.Sessions))
	}
	return report.Sessions[0]
}

func (s sessionStats) count(event string) int {
	for _, e := range s.ByEvent {
		if e.Event == event {
			return e.Count
		}
	}
	return 0
}

// entry is the part of `ctxkeep list --json` the tests read.
type entry struct {
	ID        string `json:"id"`
	ToolUseID string `json:"tool_use_id"`
	Tool      string `json:"tool"`
	Chars     int    `json:"chars"`
	ViewChars int    `json:"view_chars"`
	ExitCode  *int   `json:"exit_code"`
	CopyPath  string `json:"copy_path"`
}

// entries returns a session's stored outputs by tool_use_id.
func (c *ctxkeep) entries(session string) map[string]entry {
	c.t.Helper()
	var list struct {
		Entries []entry `json:"entries"`
	}
	c.runJSON(&list, "list", "--session", session)
	out := map[string]entry{}
	for _, e := range list.Entries {
		out[e.ToolUseID] = e
	}
	return out
}

// generousDeadlines writes a user config into home that raises the hooks'
// deadlines, and so the timeouts install registers with the client: these
// tests assert what the model sees, not how fast, and on a loaded machine a
// hook the client kills at its timeout fails open and changes what the
// model sees. SessionEnd keeps its default (Codex cuts it to 3 s).
func generousDeadlines(t *testing.T, home string) {
	t.Helper()
	config := filepath.Join(home, ".config", "ctxkeep", "config.toml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	generous := "[deadline]\ndefault = \"1m\"\nPostToolUse = \"1m\"\nSessionStart = \"1m\"\nStop = \"1m\"\nPreCompact = \"1m\"\n"
	if err := os.WriteFile(config, []byte(generous), 0o600); err != nil {
		t.Fatal(err)
	}
}
