package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// TestSecretsInNoChannel plants every format of the secret corpus in a
// session — the prompt, a command, a large output, a condensed test run,
// hostile hook fields — and drives the real binary through it (hooks on
// stdin, then the CLI, the MCP server and a team sync). Not one secret may
// come out in clear anywhere ctxkeep writes or prints: the views and the
// condensed output the model sees, the restore block and the other hook
// replies, the journal, ctxkeep.log, the learned commands, the SQLite
// index, CLI and MCP search snippets, and the team database. The exact
// places, on purpose: `ctxkeep show` (asserted to be exact), the stored
// blob and its readable copy (privacy.redact_store off).
func TestSecretsInNoChannel(t *testing.T) {
	formats := redacttest.Corpus()
	if len(formats) < 45 {
		t.Fatalf("%d formats in the corpus, want at least 45", len(formats))
	}
	u := newSecretsUser(t)

	// Each format on a line of its own, after a word to search it by.
	var lines []string
	for i, f := range formats {
		lines = append(lines, fmt.Sprintf("zq%02d %s", i, f.Text))
	}
	all := strings.Join(lines, "\n")
	prompt := "deploy with these:\n" + all
	// It ends with an age key where the program goes (pasted by mistake):
	// what is learned from it is the key and its "subcommand".
	command := "cat deploy.env && " + strings.ReplaceAll(all, "\n", " ; ") + " ; " + secretOf(t, formats, "age secret key") + " decrypt"
	var big strings.Builder
	for i := range 400 {
		fmt.Fprintf(&big, "step %03d: deploying shard %d of the fleet, all healthy\n", i, i)
	}
	big.WriteString(all + "\n")
	for i := range 100 {
		fmt.Fprintf(&big, "verify %03d: ok\n", i)
	}
	var gotest strings.Builder
	for i := range 60 {
		fmt.Fprintf(&gotest, "=== RUN   TestCase%02d\n--- PASS: TestCase%02d (0.00s)\n", i, i)
	}
	gotest.WriteString("=== RUN   TestCreds\n")
	for i, f := range formats {
		fmt.Fprintf(&gotest, "    creds_test.go:%d: zq%02d leaked %s\n", 10+i, i, strings.ReplaceAll(f.Text, "\n", "\n    "))
	}
	gotest.WriteString("--- FAIL: TestCreds (0.00s)\nFAIL\nFAIL\texample.com/shop\t0.012s\n")

	u.writeTranscript(prompt, command, big.String())
	u.run("install", "--plugin", t.TempDir()) // prepares the store (the hook never migrates, nor do commands that only read)

	// The hooks, as the client calls them.
	var replies []string
	reply := func(ev map[string]any) string {
		t.Helper()
		out := u.hook(ev)
		replies = append(replies, out)
		return out
	}
	reply(u.event("SessionStart", map[string]any{"source": "startup"}))
	reply(u.event("UserPromptSubmit", map[string]any{"prompt": prompt}))
	view := reply(u.event("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_secrets_1",
		"tool_input":    map[string]any{"command": command},
		"tool_response": map[string]any{"stdout": big.String(), "stderr": "", "interrupted": false, "isImage": false}}))
	if !strings.Contains(view, "updatedToolOutput") {
		t.Fatalf("the large output was not swapped out: %s\nlog: %s", view, u.read(u.state("ctxkeep.log")))
	}
	condensed := reply(u.event("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_secrets_2",
		"tool_input":    map[string]any{"command": "go test -v ./..."},
		"tool_response": map[string]any{"stdout": gotest.String(), "stderr": "", "interrupted": false, "isImage": false}}))
	if !strings.Contains(condensed, "condensed") {
		t.Errorf("the test run was not condensed: %.500s", condensed)
	}
	reply(u.event("Stop", nil))
	reply(u.event("PreCompact", map[string]any{"trigger": "auto"}))
	restore := reply(u.event("SessionStart", map[string]any{"source": "compact"}))
	if !strings.Contains(restore, "additionalContext") {
		t.Errorf("no restore block: %.500s", restore)
	}
	reply(u.event("PostCompact", map[string]any{"compact_summary": "<summary>We deployed.\n" + all + "</summary>"}))
	reply(u.event("UserPromptSubmit", map[string]any{"prompt": "zq01 zq02 what did the deploy print?"}))
	// Hostile fields: an invalid session id of 12 MB holding every
	// secret (refused, logged), a cwd of 12 MB (journalled).
	huge := strings.Repeat(all+"\n", 12<<20/len(all))
	u.hook(map[string]any{"session_id": "../" + huge, "hook_event_name": "Stop"})
	cwdEvent := u.event("Notification", map[string]any{"cwd": "/p/" + huge})
	u.hook(cwdEvent)

	for i, r := range replies {
		u.assertNoSecret(fmt.Sprintf("hook reply %d", i), r)
	}

	// What ctxkeep wrote.
	u.run("archive", u.transcript)
	journals, _ := filepath.Glob(filepath.Join(u.state("journal"), "*.jsonl"))
	if len(journals) == 0 {
		t.Fatal("no journal")
	}
	for _, j := range journals {
		data := u.read(j)
		u.assertNoSecret("journal "+filepath.Base(j), data)
		if strings.Count(data, "\n") > 0 && len(data) > 1<<20 {
			t.Errorf("the journal %s is %d bytes: the 12 MB cwd was copied", j, len(data))
		}
	}
	log := u.read(u.state("ctxkeep.log.1")) + u.read(u.state("ctxkeep.log")) // rotated past 1 MB
	u.assertNoSecret("ctxkeep.log", log)
	if len(log) > 1<<20 || !strings.Contains(log, "bytes, cut]") {
		t.Errorf("ctxkeep.log is %d bytes, or does not note the cut field: %.300s", len(log), log)
	}
	learned := u.run("learned", "--json")
	u.assertNoSecret("learned --json", learned)
	// The command line holding every secret was learned (as the last
	// program that printed and that a user would name; a secret where the
	// program goes is never one), so the channel is exercised.
	if !strings.Contains(learned, `"pattern"`) {
		t.Errorf("the command was not learned (the channel is not exercised): %s", learned)
	}
	for _, name := range []string{"index.db", "index.db-wal"} {
		u.assertNoSecret("SQLite "+name, u.read(filepath.Join(u.home, ".local", "share", "ctxkeep", name)))
	}

	// Search: the CLI's and the MCP server's snippets, for each format's
	// line (the stored outputs are searched too).
	mcp := u.mcp()
	for i, f := range formats {
		word := fmt.Sprintf("zq%02d", i)
		var found struct {
			Results []struct{ Snippet string }
		}
		out := u.run("search", "--json", word)
		if err := json.Unmarshal([]byte(out), &found); err != nil || len(found.Results) == 0 {
			t.Errorf("search %s: %v, %d results:\n%.300s", word, err, len(found.Results), out)
		}
		u.assertNoSecret("search --json "+word+" ("+f.Name+")", out)
		u.assertNoSecret("search "+word+" ("+f.Name+")", u.run("search", word))
		u.assertNoSecret("MCP search "+word+" ("+f.Name+")", mcp.call("search", map[string]any{"query": word}))
	}
	mcp.close()

	// The exact places: show prints the stored output as it was.
	var list struct {
		Entries []struct {
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
			CopyPath  string `json:"copy_path"`
		}
	}
	if err := json.Unmarshal([]byte(u.run("list", "--session", u.session, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Entries {
		if e.ToolUseID != "toolu_secrets_1" {
			continue
		}
		shown := u.run("show", e.ID)
		for _, f := range formats {
			if !strings.Contains(shown, f.Secret) {
				t.Errorf("show is not exact: it lacks the %s", f.Name)
			}
		}
	}

	t.Run("team", func(t *testing.T) {
		pgtest.DSN(t)
		dsn, _ := pgtest.Database(t)
		role := pgtest.Role(t, "pw-dana")
		adm := newTeamUser(t, dsn, "postgres", "", "")
		adm.run("", "team", "init")
		adm.run("", "team", "grant", role, "github.com/acme/secrets")
		tu := newTeamUser(t, dsn, role, "pw-dana", "push_outputs = true\n")
		// Dana's machine is u's: the same archive, pushed as Dana.
		u.config(readFile(filepath.Join(tu.home, ".config", "ctxkeep", "config.toml")))
		data, _ := os.ReadFile(filepath.Join(tu.home, ".pgpass"))
		write(t, filepath.Join(u.home, ".pgpass"), string(data), 0o600)
		u.runIn(u.project, "team", "add-project")
		var synced struct{ Chunks, Texts int }
		if err := json.Unmarshal([]byte(u.run("team", "sync", "--json")), &synced); err != nil || synced.Chunks == 0 || synced.Texts == 0 {
			t.Fatalf("sync = %+v, %v; want chunks and texts pushed", synced, err)
		}
		u.assertNoSecret("team/sync.log", u.read(u.state("team/sync.log")))
		for _, f := range formats {
			assertAbsent(t, dsn, f.Secret)
		}
	})
}

// secretsUser is a machine where a session ran: its HOME, project and
// transcript.
type secretsUser struct {
	t          *testing.T
	bin        string
	home       string
	project    string
	session    string
	transcript string
	env        []string
}

func newSecretsUser(t *testing.T) *secretsUser {
	home := t.TempDir()
	project := filepath.Join(t.TempDir(), "secrets")
	write(t, filepath.Join(project, ".git", "config"), "[remote \"origin\"]\n\turl = git@github.com:acme/secrets.git\n", 0o644)
	session := "5ec7e75a-0b6f-4c8e-9a2b-0123456789ab"
	u := &secretsUser{t: t, bin: testbin.Path(t), home: home, project: project, session: session,
		transcript: filepath.Join(home, ".claude", "projects", "-secrets", session+".jsonl"),
		env:        []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CI=" + os.Getenv("CI")}}
	u.config("")
	return u
}

func (u *secretsUser) config(body string) {
	// Generous deadlines: what is asserted is what is written, not how
	// fast, on a loaded machine.
	write(u.t, filepath.Join(u.home, ".config", "ctxkeep", "config.toml"),
		"[deadline]\ndefault = \"1m\"\nPostToolUse = \"1m\"\nSessionStart = \"1m\"\nStop = \"1m\"\nPreCompact = \"1m\"\nPostCompact = \"1m\"\n"+body, 0o600)
}

func (u *secretsUser) state(rel string) string {
	return filepath.Join(u.home, ".local", "state", "ctxkeep", rel)
}

func (u *secretsUser) read(path string) string {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		u.t.Fatal(err)
	}
	return string(data)
}

func (u *secretsUser) event(name string, fields map[string]any) map[string]any {
	ev := map[string]any{"session_id": u.session, "transcript_path": u.transcript, "cwd": u.project, "hook_event_name": name}
	for k, v := range fields {
		ev[k] = v
	}
	return ev
}

// hook runs `ctxkeep hook` with ev on stdin and returns its stdout.
func (u *secretsUser) hook(ev map[string]any) string {
	u.t.Helper()
	payload, _ := json.Marshal(ev)
	cmd := exec.Command(u.bin, "hook")
	cmd.Dir, cmd.Env, cmd.Stdin = u.project, append(u.env, "CLAUDE_PROJECT_DIR="+u.project), strings.NewReader(string(payload))
	out, err := cmd.Output()
	if err != nil {
		u.t.Fatalf("hook %s: %v", ev["hook_event_name"], err)
	}
	return string(out)
}

func (u *secretsUser) run(args ...string) string { u.t.Helper(); return u.runIn(u.project, args...) }

// cmd is a ctxkeep command to run in the project.
func (u *secretsUser) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(u.bin, args...)
	cmd.Dir, cmd.Env = u.project, append(u.env, "CLAUDE_PROJECT_DIR="+u.project)
	return cmd
}

func (u *secretsUser) runIn(dir string, args ...string) string {
	u.t.Helper()
	cmd := exec.Command(u.bin, args...)
	cmd.Dir, cmd.Env = dir, append(u.env, "CLAUDE_PROJECT_DIR="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		u.t.Fatalf("ctxkeep %v: %v\n%s%s", args, err, out, stderr.String())
	}
	u.assertNoSecret(fmt.Sprintf("stderr of ctxkeep %v", args), stderr.String())
	return string(out)
}

// assertNoSecret fails the test for each secret of the corpus in text, as
// written or escaped in JSON.
func (u *secretsUser) assertNoSecret(where, text string) {
	u.t.Helper()
	for _, f := range redacttest.Corpus() {
		for _, s := range []string{f.Secret, jsonInner(f.Secret), strings.SplitN(f.Secret, "\n", 2)[0]} {
			if strings.Contains(text, s) {
				i := strings.Index(text, s)
				u.t.Errorf("%s shows the %s: …%s…", where, f.Name, text[max(0, i-80):min(len(text), i+len(s)+20)])
				break
			}
		}
	}
}

func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func secretOf(t *testing.T, formats []redacttest.Format, name string) string {
	for _, f := range formats {
		if f.Name == name {
			return f.Secret
		}
	}
	t.Fatalf("no format %q in the corpus", name)
	return ""
}

// writeTranscript writes the session's transcript: the prompt, a Bash
// call running command, its output, the answer.
func (u *secretsUser) writeTranscript(prompt, command, output string) {
	now := time.Now().UTC()
	ts := func(s int) string { return now.Add(time.Duration(s) * time.Second).Format("2006-01-02T15:04:05.000Z") }
	rec := func(typ, uuid, parent string, s int, message map[string]any) string {
		r := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": u.project,
			"sessionId": u.session, "version": "2.1.330", "type": typ, "uuid": uuid, "timestamp": ts(s), "message": message}
		if parent == "" {
			r["parentUuid"] = nil
		}
		b, _ := json.Marshal(r)
		return string(b) + "\n"
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	var b strings.Builder
	b.WriteString(rec("user", "u1", "", 0, map[string]any{"role": "user", "content": prompt}))
	b.WriteString(rec("assistant", "a1", "u1", 1, map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
		"content":     []any{map[string]any{"type": "tool_use", "id": "toolu_secrets_1", "name": "Bash", "input": map[string]any{"command": command}}},
		"stop_reason": "tool_use", "usage": usage}))
	b.WriteString(rec("user", "r1", "a1", 2, map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_secrets_1", "content": output, "is_error": false}}}))
	b.WriteString(rec("assistant", "a2", "r1", 3, map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
		"content": []any{map[string]any{"type": "text", "text": "Deployed; the credentials are in deploy.env."}}, "stop_reason": "end_turn", "usage": usage}))
	write(u.t, u.transcript, b.String(), 0o600)
}

// mcpSession is one `ctxkeep mcp` process answering calls in turn.
type mcpSession struct {
	u    *secretsUser
	cmd  *exec.Cmd
	in   interface{ Write([]byte) (int, error) }
	sc   *bufio.Scanner
	next int
}

func (u *secretsUser) mcp() *mcpSession {
	cmd := exec.Command(u.bin, "mcp")
	cmd.Dir, cmd.Env = u.project, append(u.env, "CLAUDE_PROJECT_DIR="+u.project)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		u.t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<24)
	fmt.Fprintf(in, "%s\n%s\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return &mcpSession{u: u, cmd: cmd, in: in, sc: sc, next: 2}
}

// call calls a tool and returns the text of its result.
func (m *mcpSession) call(tool string, args map[string]any) string {
	m.u.t.Helper()
	id := m.next
	m.next++
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	m.in.Write(append(call, '\n'))
	for m.sc.Scan() {
		var reply struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string }
			}
		}
		if json.Unmarshal(m.sc.Bytes(), &reply) == nil && reply.ID == id {
			var b strings.Builder
			for _, c := range reply.Result.Content {
				b.WriteString(c.Text)
			}
			return b.String()
		}
	}
	m.u.t.Fatalf("ctxkeep mcp gave no answer to %s", tool)
	return ""
}

func (m *mcpSession) close() {
	if c, ok := m.in.(interface{ Close() error }); ok {
		c.Close()
	}
	m.cmd.Wait()
}
