package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// teamUser is one person of the team: a HOME of their own, a config
// naming the team archive as their role, and their password in ~/.pgpass.
type teamUser struct {
	t    *testing.T
	bin  string
	home string
	env  []string
}

func newTeamUser(t *testing.T, dsn, role, password, extra string) *teamUser {
	t.Helper()
	home := t.TempDir()
	u := &teamUser{t: t, bin: testbin.Path(t), home: home,
		env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CI=" + os.Getenv("CI")}}
	u.config(fmt.Sprintf("[team]\ndsn = %q\n%s", pgtest.In(t, dsn, role), extra))
	if password != "" {
		host := regexp.MustCompile(`@([^:/]+):(\d+)/`).FindStringSubmatch(dsn)
		write(t, filepath.Join(home, ".pgpass"), fmt.Sprintf("%s:%s:*:%s:%s\n", host[1], host[2], role, password), 0o600)
	}
	return u
}

func write(t *testing.T, path, body string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), perm); err != nil {
		t.Fatal(err)
	}
}

func (u *teamUser) config(body string) {
	write(u.t, filepath.Join(u.home, ".config", "ctxkeep", "config.toml"), body, 0o600)
}

// run runs ctxkeep in dir with stdin, and returns its output and error.
func (u *teamUser) try(dir, stdin string, args ...string) (string, string, error) {
	cmd := exec.Command(u.bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, u.env, strings.NewReader(stdin)
	if dir != "" {
		cmd.Env = append(cmd.Env, "CLAUDE_PROJECT_DIR="+dir)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func (u *teamUser) run(dir string, args ...string) string {
	u.t.Helper()
	out, stderr, err := u.try(dir, "", args...)
	if err != nil {
		u.t.Fatalf("ctxkeep %v: %v\n%s%s", args, err, out, stderr)
	}
	return out
}

// mcpCall starts `ctxkeep mcp` as u, initializes it, calls one tool and
// returns the text of its result (or of its error), keeping the server's
// stdin open until the answer is in.
func (u *teamUser) mcpCall(tool string, args map[string]any) string {
	u.t.Helper()
	cmd := exec.Command(u.bin, "mcp")
	cmd.Env = u.env
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		u.t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	fmt.Fprintf(in, "%s\n%s\n%s\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, call)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var reply struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string }
			}
		}
		if json.Unmarshal(sc.Bytes(), &reply) == nil && reply.ID == 2 {
			var b strings.Builder
			for _, c := range reply.Result.Content {
				b.WriteString(c.Text)
			}
			return b.String()
		}
	}
	u.t.Fatalf("ctxkeep mcp gave no answer to %s: %s", tool, stderr.String())
	return ""
}

// firstBash finds the first Bash call of a transcript.
func firstBash(t *testing.T, path string) (id, command string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		var blocks []struct {
			Type, ID, Name string
			Input          struct{ Command string }
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Type != "assistant" || json.Unmarshal(r.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_use" && b.Name == "Bash" {
				return b.ID, b.Input.Command
			}
		}
	}
	t.Fatalf("no Bash call in %s", path)
	return "", ""
}

// TestTeamTwoUsers is the team archive end to end, with the real binary,
// a real session and a real PostgreSQL: A archives a session of project P,
// one of whose outputs holds a secret, and syncs; B, granted P, finds A's
// exact output line and recalls the chunk; C, granted another project,
// finds nothing; the secret is nowhere in the database. Then A's
// SessionEnd, with team.sync_after_session, pushes the session's last turn
// in the background, and B finds it.
func TestTeamTwoUsers(t *testing.T) {
	pgtest.DSN(t) // skips, or fails in CI, without a server
	real := realdata.Spotter(t)[0]
	dsn, _ := pgtest.Database(t)
	alice, bob, carol := pgtest.Role(t, "pw-alice"), pgtest.Role(t, "pw-bob"), pgtest.Role(t, "pw-carol")

	// The administrator sets the team up.
	adm := newTeamUser(t, dsn, "postgres", "", "")
	if out := adm.run("", "team", "init"); !strings.Contains(out, "team archive ready") {
		t.Fatalf("team init: %s", out)
	}
	adm.run("", "team", "grant", alice, "github.com/acme/spotter")
	adm.run("", "team", "grant", bob, "github.com/acme/spotter")
	adm.run("", "team", "grant", carol, "github.com/acme/other")

	// Project P, a clone of acme/spotter, where A's session ran.
	p := filepath.Join(t.TempDir(), "spotter")
	write(t, filepath.Join(p, ".git", "config"), "[remote \"origin\"]\n\turl = git@github.com:acme/spotter.git\n", 0o644)
	a := newTeamUser(t, dsn, alice, "pw-alice", "push_outputs = true\n")
	session := strings.TrimSuffix(filepath.Base(real), ".jsonl")
	transcript := filepath.Join(a.home, ".claude", "projects", "-spotter", session+".jsonl")
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	data = regexp.MustCompile(`"cwd":"[^"]*"`).ReplaceAll(data, []byte(`"cwd":"`+p+`"`))
	write(t, transcript, string(data), 0o600)

	// The first Bash call's output, as the hook stores it: large, with the
	// failing line B will look for and a token that must not leave A's
	// machine.
	id, command := firstBash(t, transcript)
	line := "--- FAIL: TestCheckoutTotals (0.02s) checkout_test.go:1500: expected 42, got 41"
	var out strings.Builder
	for i := range 300 {
		fmt.Fprintf(&out, "ok   \tgithub.com/acme/spotter/pkg%03d\t0.%03ds\n", i, i)
	}
	fmt.Fprintf(&out, "%s\ndeploy token: %s\n", line, redacttest.GitHubToken)
	a.run(p, "install", "--plugin", t.TempDir()) // prepares the store (commands that only read do not)
	ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": transcript, "cwd": p,
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": command},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false}})
	if stdout, stderr, err := a.try(p, string(ev), "hook"); err != nil || !strings.Contains(stdout, "updatedToolOutput") {
		t.Fatalf("PostToolUse did not swap the output: %v\n%s%s", err, stdout, stderr)
	}
	a.run("", "archive", transcript)
	if got := a.run(p, "team", "add-project"); !strings.Contains(got, `"github.com/acme/spotter"`) {
		t.Fatalf("add-project named the project: %s", got)
	}
	var synced struct{ Chunks, Written, Outputs, Texts int }
	if err := json.Unmarshal([]byte(a.run("", "team", "sync", "--json")), &synced); err != nil || synced.Chunks == 0 || synced.Texts != 1 {
		t.Fatalf("A's sync = %+v, %v; want the session's chunks and the output's text", synced, err)
	}

	// B finds A's exact output line, knows whose it is, and recalls it.
	b := newTeamUser(t, dsn, bob, "pw-bob", "")
	var found struct {
		Results []struct {
			Key, Owner, Project, Snippet string
			SessionID                    string `json:"session_id"`
		}
	}
	if err := json.Unmarshal([]byte(b.run("", "search", "--team", "--json", "TestCheckoutTotals expected 42 got 41")), &found); err != nil ||
		len(found.Results) == 0 {
		t.Fatalf("B's team search: %+v, %v", found, err)
	}
	hit := found.Results[0]
	if hit.Owner != alice || hit.Project != "github.com/acme/spotter" || hit.SessionID != session || !strings.Contains(hit.Snippet, "TestCheckoutTotals") {
		t.Fatalf("B's first hit = %+v; want A's session %s of github.com/acme/spotter, snippet on the line", hit, session)
	}
	recalled := b.run("", "recall", "--team", hit.Key)
	if !strings.Contains(recalled, line) || !strings.Contains(recalled, alice) || !strings.Contains(recalled, "[redacted:github-token]") {
		t.Fatalf("B's recall does not hold the exact line, the owner and the redacted token:\n%.2000s", recalled)
	}
	if strings.Contains(recalled, redacttest.GitHubToken) {
		t.Fatal("B's recall shows A's token")
	}
	// B's agent finds it through the MCP server, which offers the team
	// scope because B's config names a team archive.
	if out := b.mcpCall("search", map[string]any{"query": "TestCheckoutTotals expected 42 got 41", "team": true}); !strings.Contains(out, hit.Key+" · "+alice+" · github.com/acme/spotter") || !strings.Contains(out, "TestCheckoutTotals") {
		t.Errorf("B's MCP team search:\n%s", out)
	}
	human := b.run("", "search", "--team", "TestCheckoutTotals")
	if !strings.Contains(human, alice) || !strings.Contains(human, "github.com/acme/spotter") {
		t.Errorf("B's search does not say whose and which project:\n%s", human)
	}

	// C, granted another project, finds nothing and recalls nothing.
	c := newTeamUser(t, dsn, carol, "pw-carol", "")
	if err := json.Unmarshal([]byte(c.run("", "search", "--team", "--all", "--json", "TestCheckoutTotals expected 42 got 41")), &found); err != nil || len(found.Results) != 0 {
		t.Fatalf("C's team search = %+v, %v; want nothing", found.Results, err)
	}
	if stdout, stderr, err := c.try("", "", "recall", "--team", hit.Key); err == nil || !strings.Contains(stderr, "nothing archived has the key") {
		t.Fatalf("C recalled A's chunk: %v\n%s%s", err, stdout, stderr)
	}

	// The secret is nowhere in the database.
	assertAbsent(t, dsn, redacttest.GitHubToken)

	// SessionEnd with team.sync_after_session pushes the last turn in the
	// background: the hook only starts the sync.
	a.config(fmt.Sprintf("[team]\ndsn = %q\npush_outputs = true\nsync_after_session = true\n", pgtest.In(t, dsn, alice)))
	appendTurn(t, transcript, session, p, "please zanzibar the quokka ledger", "The quokka ledger is zanzibared.")
	end, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": transcript, "cwd": p,
		"hook_event_name": "SessionEnd", "reason": "other"})
	if stdout, stderr, err := a.try(p, string(end), "hook"); err != nil {
		t.Fatalf("SessionEnd: %v\n%s%s", err, stdout, stderr)
	}
	log := filepath.Join(a.home, ".local", "state", "ctxkeep", "team", "sync.log")
	waitFor(t, func() bool { return strings.Count(readFile(log), "\n") >= 2 }, "the background sync's line in "+log)
	if l := readFile(log); strings.Contains(l, "failed") {
		t.Fatalf("background sync failed:\n%s", l)
	}
	if got := b.run("", "search", "--team", "quokka"); !strings.Contains(got, alice) || !strings.Contains(got, "quokka") {
		t.Fatalf("B does not find the turn the background sync pushed:\n%s", got)
	}
}

func readFile(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

// waitFor waits, generously, for a background process's result.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for range 1200 {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("waited 2 minutes for %s", what)
}

// appendTurn adds a user prompt and the model's answer to a transcript.
func appendTurn(t *testing.T, path, session, cwd, prompt, answer string) {
	t.Helper()
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	user, _ := json.Marshal(map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": cwd,
		"sessionId": session, "version": "2.1.38", "type": "user", "uuid": "e2e-user-1", "timestamp": now,
		"message": map[string]any{"role": "user", "content": prompt}})
	asst, _ := json.Marshal(map[string]any{"parentUuid": "e2e-user-1", "isSidechain": false, "userType": "external", "cwd": cwd,
		"sessionId": session, "version": "2.1.38", "type": "assistant", "uuid": "e2e-asst-1", "timestamp": now,
		"message": map[string]any{"id": "msg_e2e_1", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "text", "text": answer}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(append(append(user, '\n'), asst...), '\n')); err != nil {
		t.Fatal(err)
	}
}

// assertAbsent checks with SQL that secret is in no text of the team
// archive: chunks, entries, sessions, the outputs' bytes.
func assertAbsent(t *testing.T, dsn, secret string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM ctxkeep.chunks WHERE strpos(prompt || summary || body || meta::text || files || tsv::text, $1) > 0) +
		(SELECT count(*) FROM ctxkeep.entries WHERE strpos(input || summary || cwd || copy_path || pin_reason, $1) > 0) +
		(SELECT count(*) FROM ctxkeep.blobs WHERE strpos(encode(data, 'escape'), $1) > 0)`, secret).Scan(&n)
	if err != nil || n != 0 {
		t.Fatalf("the secret is in %d rows of the team archive (%v)", n, err)
	}
	var texts int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM ctxkeep.blobs WHERE data IS NOT NULL`).Scan(&texts); err != nil || texts == 0 {
		t.Fatalf("no output text in the archive to check (%d, %v)", texts, err)
	}
}

// TestTeamViewByDefault: with team.push_outputs off (the default), what
// the model saw of a stored output — its view, as the transcript holds it
// — goes with the step, redacted, so that a teammate's search finds the
// failing line the view kept and their recall prints the view; the whole
// output stays on its author's machine (issue 25.8).
func TestTeamViewByDefault(t *testing.T) {
	pgtest.DSN(t) // skips, or fails in CI, without a server
	dsn, _ := pgtest.Database(t)
	alice, bob := pgtest.Role(t, "pw-alice"), pgtest.Role(t, "pw-bob")
	adm := newTeamUser(t, dsn, "postgres", "", "")
	adm.run("", "team", "init")
	adm.run("", "team", "grant", alice, "github.com/acme/views")
	adm.run("", "team", "grant", bob, "github.com/acme/views")

	p := filepath.Join(t.TempDir(), "views")
	write(t, filepath.Join(p, ".git", "config"), "[remote \"origin\"]\n\turl = git@github.com:acme/views.git\n", 0o644)
	a := newTeamUser(t, dsn, alice, "pw-alice", "")
	session := "5c0ffee0-0000-4000-8000-000000000001"
	transcript := filepath.Join(a.home, ".claude", "projects", "-views", session+".jsonl")
	rec := func(v map[string]any) string {
		v["sessionId"], v["cwd"], v["timestamp"] = session, p, "2026-11-21T08:00:00Z"
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	head := rec(map[string]any{"type": "user", "uuid": "u1", "parentUuid": nil, "message": map[string]any{"role": "user", "content": "run the tests"}}) +
		rec(map[string]any{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": map[string]any{"id": "m1", "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_v1", "name": "Bash", "input": map[string]any{"command": "go test ./..."}}}}})
	write(t, transcript, head, 0o600)

	line := "--- FAIL: TestWombatLedger (0.02s) ledger_test.go:88: expected 42, got 41"
	var out strings.Builder
	for i := range 300 {
		fmt.Fprintf(&out, "ok   \tgithub.com/acme/views/pkg%03d\t0.%03ds\n", i, i)
	}
	fmt.Fprintf(&out, "%s\nFAIL\ndeploy token: %s\n", line, redacttest.GitHubToken)
	a.run(p, "install", "--agent", "claude-code")
	ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": transcript, "cwd": p,
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_v1", "tool_input": map[string]any{"command": "go test ./..."},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false}})
	stdout, stderr, err := a.try(p, string(ev), "hook")
	var reply struct {
		HookSpecificOutput struct {
			UpdatedToolOutput struct{ Stdout string } `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err != nil || json.Unmarshal([]byte(stdout), &reply) != nil || reply.HookSpecificOutput.UpdatedToolOutput.Stdout == "" {
		t.Fatalf("PostToolUse did not swap the output: %v\n%s%s", err, stdout, stderr)
	}
	view := reply.HookSpecificOutput.UpdatedToolOutput.Stdout
	if !strings.Contains(view, "TestWombatLedger") {
		t.Fatalf("the view lost the failing line:\n%s", view)
	}
	// The client applies the replacement: the transcript holds the view.
	write(t, transcript, head+
		rec(map[string]any{"type": "user", "uuid": "u2", "parentUuid": "a1", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_v1", "content": view}}}})+
		rec(map[string]any{"type": "assistant", "uuid": "a2", "parentUuid": "u2", "message": map[string]any{"id": "m2", "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "text", "text": "one test fails"}}}}), 0o600)
	a.run("", "archive", transcript)
	a.run(p, "team", "add-project")
	var synced struct{ Chunks, Outputs, Texts, Views int }
	if err := json.Unmarshal([]byte(a.run("", "team", "sync", "--json")), &synced); err != nil || synced.Outputs != 1 || synced.Texts != 0 || synced.Views != 1 {
		t.Fatalf("A's sync = %+v, %v; want the output's entry with its view, not its text", synced, err)
	}

	b := newTeamUser(t, dsn, bob, "pw-bob", "")
	var found struct {
		Results []struct{ Key, Snippet string }
	}
	if err := json.Unmarshal([]byte(b.run("", "search", "--team", "--json", "TestWombatLedger")), &found); err != nil || len(found.Results) == 0 {
		t.Fatalf("B's team search does not find the line the model saw: %+v, %v", found, err)
	}
	recalled := b.run("", "recall", "--team", found.Results[0].Key)
	if !strings.Contains(recalled, "what the model saw in its place") || !strings.Contains(recalled, line) {
		t.Fatalf("B's recall does not print what the model saw:\n%.3000s", recalled)
	}
	if strings.Contains(recalled, redacttest.GitHubToken) || strings.Contains(recalled, "pkg150") {
		t.Fatalf("B's recall holds what stayed on A's machine:\n%.3000s", recalled)
	}
	// The view names the readable copy A's agent can Read: a path of A's
	// home, which does not leave it.
	if !strings.Contains(view, a.home) || strings.Contains(recalled, a.home) || !strings.Contains(recalled, "its readable copy, on its author's machine") {
		t.Fatalf("the path of A's readable copy (in the view: %v) in B's recall:\n%.3000s", strings.Contains(view, a.home), recalled)
	}
}
