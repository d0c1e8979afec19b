package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// replicaLog is what replica.sh prints: 600 lines, about 15,000
// characters (above the Bash threshold, below the MCP server's bound),
// with two failures and their causes.
func replicaLog() string {
	var b strings.Builder
	for i := 1; i <= 600; i++ {
		switch i {
		case 250:
			b.WriteString("--- FAIL: TestQuorum (0.02s)\n")
		case 251:
			b.WriteString("    quorum_test.go:41: ERROR: replica db-7 lost quorum at 12:04:33\n")
		case 480:
			b.WriteString("--- FAIL: TestFailover (1.50s)\n")
		default:
			fmt.Fprintf(&b, "=== RUN   TestReplica%04d\n", i)
		}
	}
	return b.String()
}

const replicaScript = `i=1
while [ $i -le 600 ]; do
  case $i in
    250) echo "--- FAIL: TestQuorum (0.02s)" ;;
    251) echo "    quorum_test.go:41: ERROR: replica db-7 lost quorum at 12:04:33" ;;
    480) echo "--- FAIL: TestFailover (1.50s)" ;;
    *) printf '=== RUN   TestReplica%04d\n' $i ;;
  esac
  i=$((i+1))
done
`

// TestMCPToolsGiveBackStoredOutputs drives the real client with ctxkeep
// installed as a user installs it (hooks, and the MCP server in
// ~/.claude.json). A large Bash output is swapped out, and its view names
// the tool; the model then calls mcp__ctxkeep__show with the id from the
// view, whole and narrowed with grep, and gets the exact original and the
// exact matching lines. In a later session, mcp__ctxkeep__search finds
// that turn by an exact line of its output, and recall reads it.
func TestMCPToolsGiveBackStoredOutputs(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	if err := os.WriteFile(filepath.Join(h.Project, "replica.sh"), []byte(replicaScript), 0o644); err != nil {
		t.Fatal(err)
	}
	// The Bash tool gives the output without its last newline: that is
	// the original the model would have seen, and what ctxkeep stores.
	original := strings.TrimSuffix(replicaLog(), "\n")

	var id string
	h.API.Script(fakeapi.Bash("toolu_run", "sh replica.sh"))
	h.API.Respond(func(r *fakeapi.Request) fakeapi.Reply {
		if _, ok := r.ToolResult("toolu_grep"); ok {
			return fakeapi.Say("done")
		}
		if _, ok := r.ToolResult("toolu_show"); ok {
			return fakeapi.Call("toolu_grep", "mcp__ctxkeep__show", map[string]any{"id": id, "grep": "FAIL|ERROR"})
		}
		view, _ := r.ToolResult("toolu_run")
		m := regexp.MustCompile("kept exactly as id ([0-9a-f]{12})").FindStringSubmatch(view)
		if m == nil {
			return fakeapi.Say("no id in the view")
		}
		id = m[1]
		return fakeapi.Call("toolu_show", "mcp__ctxkeep__show", map[string]any{"id": id})
	})
	first := h.Run("run the replica tests", "--tools", "Bash")

	last := h.API.Last(fakeapi.Main)
	view, _ := last.ToolResult("toolu_run")
	if want := "`mcp__ctxkeep__show {\"id\":\"" + id + "\",\"lines\":\"A:B\"}`"; id == "" || !strings.Contains(view, want) || strings.Contains(view, "ctxkeep show ") {
		t.Fatalf("the view does not name the tool (%s):\n%s", want, view)
	}
	if got, ok := last.ToolResult("toolu_show"); got != original || got != ck.run("show", id) {
		t.Errorf("mcp__ctxkeep__show returned %d characters (found %t), not the exact original of %d:\n%s", len(got), ok, len(original), truncate(got, 500))
	}
	wantLines := "250:--- FAIL: TestQuorum (0.02s)\n251:    quorum_test.go:41: ERROR: replica db-7 lost quorum at 12:04:33\n--\n480:--- FAIL: TestFailover (1.50s)\n"
	if got, _ := last.ToolResult("toolu_grep"); got != wantLines {
		t.Errorf("mcp__ctxkeep__show with grep returned:\n%q\nwant:\n%q", got, wantLines)
	}
	if e := ck.entries(first.SessionID)["toolu_run"]; e.ID != id {
		t.Errorf("entries: %+v, the view named %s", ck.entries(first.SessionID), id)
	}
	var info struct {
		Retrievals int `json:"retrievals"`
	}
	if err := json.Unmarshal([]byte(ck.run("show", id, "--info")), &info); err != nil || info.Retrievals != 2 {
		t.Errorf("the two shows through MCP counted %d retrievals (%v)", info.Retrievals, err)
	}

	// A new session finds the earlier turn by an exact line of its output.
	line := "ERROR: replica db-7 lost quorum at 12:04:33"
	var key, lineNo string
	h.API.Script(fakeapi.Call("toolu_search", "mcp__ctxkeep__search", map[string]any{"query": line}))
	h.API.Respond(func(r *fakeapi.Request) fakeapi.Reply {
		if _, ok := r.ToolResult("toolu_recall"); ok {
			return fakeapi.Say("done")
		}
		found, _ := r.ToolResult("toolu_search")
		// A hit: its head line, what it matched and ran, then its lines,
		// each with its number in the step.
		m := regexp.MustCompile(`(?m)^(k[0-9a-f]{11}) · session ` + first.SessionID[:8] + ` · step \d+\.\d+ · .*\n(?:  .*\n)*?  (\d+):    quorum_test.go:41: ` + line + `$`).FindStringSubmatch(found)
		if m == nil {
			return fakeapi.Say("not found")
		}
		key, lineNo = m[1], m[2]
		return fakeapi.Call("toolu_recall", "mcp__ctxkeep__recall", map[string]any{"key": key, "lines": lineNo + ":" + lineNo})
	})
	h.Run("when did the replica lose quorum?", "--tools", "Bash")
	last = h.API.Last(fakeapi.Main)
	found, _ := last.ToolResult("toolu_search")
	if key == "" {
		t.Fatalf("mcp__ctxkeep__search did not find the turn of session %s by %q:\n%s", first.SessionID, line, found)
	}
	if got, _ := last.ToolResult("toolu_recall"); got != "    quorum_test.go:41: "+line+"\n" {
		t.Errorf("recall %s lines %s:%s = %q", key, lineNo, lineNo, got)
	}
}

// TestMCPContextCost measures what the server costs the context of a
// session, from the requests the real client sends: the names in the
// deferred-tools message, then, once the model loads the tools through
// ToolSearch, their definitions; and, in a session whose tool set leaves
// ToolSearch out (--tools), the definitions sent with every request. The
// figures are cl100k tokens (internal/breakdown's tokenizer), reported in
// docs/BENCHMARKS.md.
func TestMCPContextCost(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	names := []string{"mcp__ctxkeep__search", "mcp__ctxkeep__show", "mcp__ctxkeep__recall"}
	h.API.Script(
		fakeapi.Call("toolu_load", "ToolSearch", map[string]any{"query": "select:" + strings.Join(names, ","), "max_results": 3}),
		fakeapi.Say("loaded"),
	)
	h.Run("hello")
	reqs := h.API.RequestsOf(fakeapi.Main)
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	tok := breakdown.Tokenizer()

	// Deferred: listed by name, one a line, in a system message; no
	// definition is sent.
	listing := strings.Join(reqs[0].SystemMessages(), "\n")
	listed := 0
	for _, n := range names {
		if !strings.Contains(listing, "\n"+n+"\n") {
			t.Errorf("%s is not in the deferred-tools listing", n)
		}
		listed += tok.Count(n + "\n")
	}
	if strings.Contains(listing, "## ctxkeep") {
		t.Error("the server gave instructions: the client puts them in every request")
	}
	if n := definitions(t, reqs[0], names, tok, false); n != 0 {
		t.Errorf("%d tokens of definitions sent before the tools were loaded", n)
	}
	// Loaded: the definitions the request carries from then on.
	loaded := definitions(t, reqs[1], names, tok, true)

	// Without ToolSearch, the client sends the definitions at once.
	before := len(h.API.RequestsOf(fakeapi.Main))
	h.API.Script(fakeapi.Say("ok"))
	h.Run("hello", "--tools", "Bash")
	upfront := definitions(t, h.API.RequestsOf(fakeapi.Main)[before], names, tok, true)

	t.Logf("context cost of ctxkeep's MCP server (cl100k tokens): %d listed (deferred), %d more once the three tools are loaded, %d in all; "+
		"%d with every request when the tool set leaves ToolSearch out", listed, loaded, listed+loaded, upfront)
	if listed+loaded > 600 || upfront > 600 {
		t.Errorf("the server costs %d tokens (%d without ToolSearch): keep it under 600", listed+loaded, upfront)
	}
}

// definitions counts the tokens of the named tools' definitions in a
// request (name, description, input schema, as the API is sent them); want
// says they must all be there.
func definitions(t *testing.T, r *fakeapi.Request, names []string, tok breakdown.Counter, want bool) int {
	t.Helper()
	tools, _ := r.JSON["tools"].([]any)
	n := 0
	for _, name := range names {
		def := toolDefinition(tools, name)
		if def == nil {
			if want {
				t.Errorf("request #%d does not define %s", r.Seq, name)
			}
			continue
		}
		data, _ := json.Marshal(map[string]any{"name": def["name"], "description": def["description"], "input_schema": def["input_schema"]})
		n += tok.Count(string(data))
	}
	return n
}

func toolDefinition(tools []any, name string) map[string]any {
	for _, t := range tools {
		if def, ok := t.(map[string]any); ok && def["name"] == name {
			return def
		}
	}
	return nil
}

// TestClientConfigLockIsTheClients checks the lock ctxkeep takes to edit
// ~/.claude.json (claudecode.ApplyFile, as for settings) against the real
// client, which writes that file at every start: while ctxkeep holds
// ~/.claude.json.lock, the client finds it held and does not write
// around it; once ctxkeep lets go, the client takes it and leaves nothing
// behind.
func TestClientConfigLockIsTheClients(t *testing.T) {
	h := clienttest.New(t)
	config := filepath.Join(h.Home, ".claude.json")
	held := "Failed to save config with lock: Error: Lock file is already being held"
	if err := os.WriteFile(config, []byte(`{"hasCompletedOnboarding": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	release, err := fsx.LockFolder(config+".lock", 10*time.Second, time.Second) // as ApplyFile takes it
	if err != nil {
		t.Fatal(err)
	}
	h.API.Script(fakeapi.Say("ok"))
	res := h.Run("hi", "--debug")
	release()
	if !strings.Contains(debugLog(t, h, res), held) {
		t.Errorf("while ctxkeep held the lock, the client did not find it held (no %q in its debug output)", held)
	}
	h.API.Script(fakeapi.Say("ok"))
	res = h.Run("hi", "--debug")
	if strings.Contains(debugLog(t, h, res), held) {
		t.Error("the client found the lock held after ctxkeep released it")
	}
	if _, err := os.Stat(config + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the client left its lock behind: %v", err)
	}
}

// TestPluginGivesHooksAndTools: one plugin folder (`ctxkeep install
// --plugin DIR`) gives the client both the hooks and the server; the
// client names the plugin's tools mcp__plugin_ctxkeep_ctxkeep__…, and the
// views say so.
func TestPluginGivesHooksAndTools(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	plugin := filepath.Join(h.Home, "ctxkeep-plugin")
	ck.run("install", "--plugin", plugin)
	if err := os.WriteFile(filepath.Join(h.Project, "replica.sh"), []byte(replicaScript), 0o644); err != nil {
		t.Fatal(err)
	}
	const tool = "mcp__plugin_ctxkeep_ctxkeep__show"
	h.API.Script(fakeapi.Bash("toolu_run", "sh replica.sh"))
	h.API.Respond(func(r *fakeapi.Request) fakeapi.Reply {
		if _, ok := r.ToolResult("toolu_show"); ok {
			return fakeapi.Say("done")
		}
		view, _ := r.ToolResult("toolu_run")
		m := regexp.MustCompile("`" + tool + ` \{"id":"([0-9a-f]{12})","lines":"A:B"\}` + "`").FindStringSubmatch(view)
		if m == nil {
			return fakeapi.Say("the view does not name the plugin's tool")
		}
		return fakeapi.Call("toolu_show", tool, map[string]any{"id": m[1], "lines": "251:251"})
	})
	h.Run("run the replica tests", "--tools", "Bash", "--plugin-dir", plugin)
	last := h.API.Last(fakeapi.Main)
	if got, _ := last.ToolResult("toolu_show"); got != "    quorum_test.go:41: ERROR: replica db-7 lost quorum at 12:04:33\n" {
		view, _ := last.ToolResult("toolu_run")
		t.Errorf("%s lines 251:251 = %q; the view:\n%s", tool, got, view)
	}
}

// deployScript prints project B's deploy log: about 9,000 characters (a
// view, and a stored output), one line of it a token.
const deployScript = `i=1
while [ $i -le 300 ]; do
  printf 'deploy step %04d done\n' $i
  [ $i -eq 150 ] && echo "DEPLOY_TOKEN=b-only-9f8e7d"
  i=$((i+1))
done
`

// TestMCPServesItsProject: the client starts the server in each session's
// project, and the server reads that project only. A session in project
// B stores its deploy log; a session in project A then asks the tools for
// B's output by its id, for B's session, and searches for B's token: each
// finds nothing, while A's own stored output comes back exact. The server
// learns its project as the hooks do (the client's CLAUDE_PROJECT_DIR, or
// its working directory), so this also checks what the client gives it.
func TestMCPServesItsProject(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	projectA, projectB := h.Project, filepath.Join(h.Home, "project-b")
	if err := os.MkdirAll(projectB, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(projectA, "replica.sh"), []byte(replicaScript), 0o644)
	os.WriteFile(filepath.Join(projectB, "deploy.sh"), []byte(deployScript), 0o644)
	idOf := regexp.MustCompile("kept exactly as id ([0-9a-f]{12})")
	swap := func(project, call, command string) (id, session string) {
		h.Project = project
		h.API.Script(fakeapi.Bash(call, command), fakeapi.Say("done"))
		res := h.Run("run "+command, "--tools", "Bash")
		view, _ := h.API.Last(fakeapi.Main).ToolResult(call)
		m := idOf.FindStringSubmatch(view)
		if m == nil {
			t.Fatalf("%s in %s was not swapped out:\n%s", command, project, view)
		}
		return m[1], res.SessionID
	}
	idA, _ := swap(projectA, "toolu_a", "sh replica.sh")
	idB, sessionB := swap(projectB, "toolu_b", "sh deploy.sh")

	h.Project = projectA
	calls := []fakeapi.Reply{
		fakeapi.Call("toolu_show_b", "mcp__ctxkeep__show", map[string]any{"id": idB}),
		fakeapi.Call("toolu_recall_b", "mcp__ctxkeep__recall", map[string]any{"key": sessionB[:8] + ":1"}),
		fakeapi.Call("toolu_search_b", "mcp__ctxkeep__search", map[string]any{"query": "DEPLOY_TOKEN b-only-9f8e7d"}),
		fakeapi.Call("toolu_search_session_b", "mcp__ctxkeep__search", map[string]any{"query": "deploy", "session": sessionB}),
		fakeapi.Call("toolu_show_a", "mcp__ctxkeep__show", map[string]any{"id": idA}),
		fakeapi.Say("done"),
	}
	h.API.Script(calls...)
	h.Run("look around", "--tools", "Bash")
	last := h.API.Last(fakeapi.Main)
	for call, want := range map[string]string{
		"toolu_show_b":           `no stored output has the id "` + idB + `"`,
		"toolu_recall_b":         `no session "` + sessionB[:8] + `" in the archive`,
		"toolu_search_b":         "no match for",
		"toolu_search_session_b": `no session "` + sessionB + `" in the archive`,
	} {
		got, ok := last.ToolResult(call)
		said := strings.ReplaceAll(got, `"DEPLOY_TOKEN b-only-9f8e7d"`, "") // the query, echoed
		if !ok || !strings.Contains(got, want) || strings.Contains(said, "b-only-9f8e7d") || strings.Contains(said, "deploy step") {
			t.Errorf("%s in project A = %q (found %t), want %q", call, got, ok, want)
		}
	}
	if got, _ := last.ToolResult("toolu_show_a"); got != strings.TrimSuffix(replicaLog(), "\n") {
		t.Errorf("project A's own output through show: %d characters:\n%s", len(got), truncate(got, 300))
	}
	// The user's command line still reaches every project.
	if out := ck.run("show", idB); !strings.Contains(out, "DEPLOY_TOKEN=b-only-9f8e7d") {
		t.Errorf("ctxkeep show %s:\n%s", idB, truncate(out, 300))
	}
}
