package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

// sandbox is a HOME of its own for in-process runs of the CLI.
type sandbox struct {
	t    *testing.T
	home string
	env  map[string]string
}

func newSandbox(t *testing.T) *sandbox {
	home := t.TempDir()
	s := &sandbox{t: t, home: home, env: map[string]string{"HOME": home}}
	if r := s.run(false, "", "install"); r.code != 0 { // the store, for the hooks
		t.Fatalf("install: %+v", r)
	}
	return s
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs the CLI in-process; tty says whether stdout and stderr are
// terminals.
func (s *sandbox) run(tty bool, stdin string, args ...string) result {
	s.t.Helper()
	var out, errOut bytes.Buffer
	var environ []string
	for k, v := range s.env {
		environ = append(environ, k+"="+v)
	}
	p := Process{
		Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return s.env[k] }, Environ: environ,
		Getwd:      func() (string, error) { return s.home, nil },
		Executable: func() (string, error) { return "/usr/local/bin/ctxkeep", nil },
		Now:        time.Now, StdoutTTY: tty, StderrTTY: tty,
		Backends: storetest.Backends(),
	}
	code := Main(time.Now(), p)
	return result{code, out.String(), errOut.String()}
}

// swap feeds the hook a PostToolUse event with a large Bash output, so
// that an entry is stored.
func (s *sandbox) swap(id string) {
	s.t.Helper()
	var out strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&out, "%s line %d ... ok\n", id, i)
	}
	ev, _ := json.Marshal(map[string]any{
		"session_id": "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10", "cwd": "/p", "hook_event_name": "PostToolUse",
		"transcript_path": filepath.Join(s.home, ".claude/projects/-p/0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10.jsonl"),
		"tool_name":       "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": "make " + id},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false},
	})
	if r := s.run(false, string(ev), "hook"); !strings.Contains(r.stdout, "updatedToolOutput") {
		log, _ := os.ReadFile(filepath.Join(s.home, ".local/state/ctxkeep/ctxkeep.log"))
		s.t.Fatalf("the hook did not swap the output: %+v\n%s", r, log)
	}
}

// transcript writes a small session transcript for the project -p.
func (s *sandbox) transcript(session string) string {
	s.t.Helper()
	dir := filepath.Join(s.home, ".claude/projects/-p")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, session+".jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"` + session + `","cwd":"/p","timestamp":"2026-11-21T10:00:00Z","message":{"role":"user","content":"Add a rate limiter."}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + session + `","cwd":"/p","timestamp":"2026-11-21T10:00:05Z","message":{"id":"m1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"A token bucket."}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":20000,"output_tokens":5}}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return path
}

// Lists print their header and closing hint on a terminal only.
func TestHeadersAndHintsOnATerminalOnly(t *testing.T) {
	s := newSandbox(t)
	s.swap("toolu_1")
	tty := s.run(true, "", "list")
	pipe := s.run(false, "", "list")
	if tty.code != 0 || pipe.code != 0 {
		t.Fatalf("list: %+v %+v", tty, pipe)
	}
	if !strings.HasPrefix(tty.stdout, "ID ") || !strings.Contains(tty.stdout, "ctxkeep show ID") {
		t.Errorf("on a terminal, list has no header or hint:\n%s", tty.stdout)
	}
	if strings.Contains(pipe.stdout, "ID ") || strings.Contains(pipe.stdout, "ctxkeep show ID") || strings.Count(pipe.stdout, "\n") != 1 {
		t.Errorf("piped, list prints more than its row:\n%s", pipe.stdout)
	}
}

// Long work draws its progress on a terminal's stderr, and erases it;
// piped, or with --json, stderr stays empty.
func TestProgressOnATerminalOnly(t *testing.T) {
	s := newSandbox(t)
	s.transcript("5b2c0c9e-1f7e-4d7b-9a51-0f4a2f0b6d11")
	s.swap("toolu_1")
	for _, args := range [][]string{{"archive", "--all"}, {"check"}, {"optimize"}} {
		tty := s.run(true, "", args...)
		if tty.code != 0 || !strings.Contains(tty.stderr, "\r\x1b[K") || strings.Contains(tty.stderr, "\n") {
			t.Errorf("%v on a terminal: stderr %q, want a progress line erased at the end", args, tty.stderr)
		}
		if pipe := s.run(false, "", args...); pipe.code != 0 || pipe.stderr != "" {
			t.Errorf("%v piped: stderr %q, want nothing", args, pipe.stderr)
		}
		if js := s.run(true, "", append(args, "--json")...); js.code != 0 || js.stderr != "" {
			t.Errorf("%v --json on a terminal: stderr %q, want nothing", args, js.stderr)
		}
	}
	tty := s.run(true, "", "archive", "--all")
	if !strings.Contains(tty.stderr, "archiving transcripts 1/1 (100%)") {
		t.Errorf("archive progress: %q", tty.stderr)
	}
}

// Which session "latest" is, is said on a terminal's stderr.
func TestLatestSessionIsNamedOnATerminal(t *testing.T) {
	s := newSandbox(t)
	s.env["CLAUDE_PROJECT_DIR"] = "/p"
	s.transcript("5b2c0c9e-1f7e-4d7b-9a51-0f4a2f0b6d11")
	tty := s.run(true, "", "context")
	if tty.code != 0 || !strings.Contains(tty.stderr, "ctxkeep: the latest session of this project: 5b2c0c9e-1f7e-4d7b-9a51-0f4a2f0b6d11") {
		t.Errorf("context on a terminal: %+v", tty)
	}
	if pipe := s.run(false, "", "context"); pipe.code != 0 || pipe.stderr != "" {
		t.Errorf("context piped: stderr %q", pipe.stderr)
	}
	s.env["CLAUDE_PROJECT_DIR"] = "/elsewhere"
	// Another project's session is said on stdout, terminal or not (issue 25.1).
	for _, terminal := range []bool{true, false} {
		if out := s.run(terminal, "", "context"); !strings.HasPrefix(out.stdout, "note: this project (/elsewhere) has no session of its own: this is another project's session") {
			t.Errorf("context of another project (terminal %v): %q", terminal, out.stdout)
		}
	}
}

// Every --json document has [] for an empty list, never null, and a
// failure under --json is an error object on stdout, nothing on stderr.
func TestJSONDocuments(t *testing.T) {
	s := newSandbox(t)
	s.env["CLAUDE_PROJECT_DIR"] = "/p"
	empty := [][]string{
		{"list"}, {"pins"}, {"stats"}, {"search", "nothing"}, {"archive", "--all"}, {"prune", "--dry-run"},
		{"learned"}, {"check"}, {"doctor"}, {"config"},
	}
	s.swap("toolu_1")
	s.transcript("5b2c0c9e-1f7e-4d7b-9a51-0f4a2f0b6d11")
	full := [][]string{
		{"list"}, {"list", "--all"}, {"pins"}, {"stats"}, {"stats", "--session", "0b6f"}, {"archive", "--all"},
		{"search", "limiter", "--all"}, {"recall", "5b2c:1"}, {"prune", "--dry-run"}, {"prune"}, {"check"},
		{"check", "--repair"}, {"optimize"}, {"context"}, {"replay"}, {"purge", "5b2c", "--analyze"}, {"doctor"},
	}
	for _, args := range append(empty, full...) {
		r := s.run(false, "", append(args, "--json")...)
		if r.stderr != "" {
			t.Errorf("%v --json: stderr %q", args, r.stderr)
		}
		var doc any
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Errorf("%v --json: not one JSON document: %v\n%s", args, err, r.stdout)
			continue
		}
		if path := findNull(doc, ""); path != "" {
			t.Errorf("%v --json: null at %s", args, path)
		}
	}

	for _, c := range []struct {
		args []string
		code string
		exit int
	}{
		{[]string{"show", "nosuch", "--info", "--json"}, "usage", 2}, // show has no --json
		{[]string{"list", "--session", "nosuch", "--json"}, "not_found", 1},
		{[]string{"search", "the", "--json"}, "empty_query", 2},
		{[]string{"stats", "--bogus", "--json"}, "usage", 2},
		{[]string{"recall", "knothing", "--json"}, "not_found", 1},
	} {
		r := s.run(false, "", c.args...)
		var e errorDoc
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.Error.Code != c.code || e.Error.Message == "" || r.code != c.exit || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout %s, stderr %q; want an error object with code %q, exit %d", c.args, r.code, r.stdout, r.stderr, c.code, c.exit)
		}
	}
}

// findNull returns where v holds a null, or "".
func findNull(v any, at string) string {
	switch v := v.(type) {
	case nil:
		return at
	case map[string]any:
		for k, x := range v {
			if p := findNull(x, at+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, x := range v {
			if p := findNull(x, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// Every flag of every command has a description, and every value flag a
// placeholder: help never shows Go's "-level none" quirk or a bare type.
func TestFlagHelp(t *testing.T) {
	for _, c := range commands {
		var b strings.Builder
		printCommandHelp(&b, c)
		h := b.String()
		for _, line := range strings.Split(h, "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") && !strings.HasPrefix(line, "  -C ") {
				t.Errorf("%s: a long flag with one dash: %q", c.name, line)
			}
		}
		for _, bad := range []string{" TEXT ", "\n  -statusline ctxkeep", "\n  -level none", "``"} {
			if strings.Contains(h, bad) {
				t.Errorf("%s: help shows %q:\n%s", c.name, bad, h)
			}
		}
	}
}

// The README shows what `ctxkeep replay --sample` prints on a fresh
// machine; the figures are the same everywhere, so they must be the ones
// the binary prints now.
func TestReadmeReplayFigures(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(readme), "```\nWith ctxkeep, ")
	if start < 0 {
		t.Fatal("README has no replay figures block")
	}
	block := string(readme)[start+4:]
	block = block[:strings.Index(block, "```")]
	r := newSandbox(t).run(false, "", "replay", "--sample")
	if r.code != 0 || !strings.HasSuffix(r.stdout, block) {
		t.Fatalf("README's figures:\n%s\nreplay --sample prints (exit %d):\n%s", block, r.code, r.stdout)
	}
}
