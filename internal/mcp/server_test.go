package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

const (
	entryID = "3f9a12bc07de"
	session = "5b2c0c9e-1f7e-4d7b-9a51-0f4a2f0b6d11"
	project = "/home/you/project"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// testOutput is a test run of n lines with one failure at line 700 and a
// colour code on the summary line.
func testOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		switch i {
		case 700:
			b.WriteString("--- FAIL: TestQuorum (0.02s)\n    quorum_test.go:41: replica db-7 lost quorum at 12:04:33\n")
		case n:
			b.WriteString("\x1b[31mFAIL\x1b[0m\tgithub.com/x/replica\t0.91s\n")
		default:
			fmt.Fprintf(&b, "=== RUN   TestCase%04d\n", i)
		}
	}
	return b.String()
}

// fixture is a store with one stored output and the archived turn that
// refers to it, and a client connected to the server over the SDK's
// in-memory transport.
type fixture struct {
	st     *storeWithCalls
	client *sdk.ClientSession
	output string
}

// storeWithCalls counts how often the server opened the store, and
// whether every open was closed.
type storeWithCalls struct {
	Store
	opened, closed int
}

func newFixture(t *testing.T, output string, options ...func(*Options)) *fixture {
	t.Helper()
	ctx := context.Background()
	local := storetest.Local(t, t.TempDir())
	if _, err := local.PutEntry(ctx, ctxkeep.Entry{ID: entryID, SessionID: session, Tool: "Bash", Input: "go test ./...", CreatedAt: t0}, []byte(output)); err != nil {
		t.Fatal(err)
	}
	turn := ctxkeep.Chunk{Key: "k77043b020b9", SessionID: session, Project: project, Kind: ctxkeep.KindTurn, Turn: 3, Start: t0, End: t0.Add(time.Minute),
		Prompt: "run the replica tests", Summary: "ran go test ./...: TestQuorum failed",
		Body: "user: run the replica tests\nassistant: Bash `go test ./...`\nresult:\n" + archive.RefPrefix + entryID + "]]\nassistant: TestQuorum fails.\n",
		Meta: ctxkeep.Meta{Entries: []string{entryID}}, Outputs: []string{output}}
	other := ctxkeep.Chunk{Key: "k11111111111", SessionID: session, Project: project, Kind: ctxkeep.KindTurn, Turn: 1, Start: t0, End: t0,
		Prompt: "hello", Summary: "said hello", Body: "user: hello\nassistant: hello, what shall we test?\n"}
	if _, err := local.SaveChunks(ctx, session, []ctxkeep.Chunk{other, turn}, ctxkeep.ArchiveCursor{Transcript: "/t/" + session + ".jsonl", Turn: 3}); err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: &storeWithCalls{Store: local}, output: output}
	opts := Options{
		Open: func(context.Context) (Store, func(), error) {
			f.st.opened++
			return f.st, func() { f.st.closed++ }, nil
		},
		Project: project, Now: func() time.Time { return t0.Add(time.Hour) }, Version: "test",
	}
	for _, o := range options {
		o(&opts)
	}
	srv := New(opts)
	serverT, clientT := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	if f.client, err = client.Connect(ctx, clientT, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.client.Close() })
	return f
}

// call calls a tool and returns its text and whether it is an error.
func (f *fixture) call(t *testing.T, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := f.client.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("%s %v: content %T", name, args, c)
		}
		b.WriteString(tc.Text)
	}
	return b.String(), res.IsError
}

func (f *fixture) ok(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	out, isErr := f.call(t, name, args)
	if isErr {
		t.Fatalf("%s %v: error %s", name, args, out)
	}
	return out
}

// The server says who it is, gives no instructions (the client would put
// them in every request), and offers exactly three tools, each with a
// short description and a schema that names the command's flags.
func TestInitializeAndTools(t *testing.T) {
	f := newFixture(t, testOutput(10))
	init := f.client.InitializeResult()
	if init.ServerInfo.Name != "ctxkeep" || init.Instructions != "" || init.Capabilities.Tools == nil {
		t.Errorf("initialize = %+v", init)
	}
	res, err := f.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	params := map[string][]string{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema := tool.InputSchema.(map[string]any)
		for p, def := range schema["properties"].(map[string]any) {
			params[tool.Name] = append(params[tool.Name], p)
			if d, _ := def.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s's parameter %s has no description", tool.Name, p)
			}
		}
		slices.Sort(params[tool.Name])
		if schema["additionalProperties"] != false {
			t.Errorf("%s accepts unknown arguments: a misspelt narrowing would return the whole text", tool.Name)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "recall search show" {
		t.Fatalf("tools = %v", names)
	}
	want := map[string]string{
		"show":   "context failures grep head id lines tail",
		"recall": "context grep head key lines tail",
		"search": "limit query session",
	}
	for name, w := range want {
		if got := strings.Join(params[name], " "); got != w {
			t.Errorf("%s takes %s, want %s", name, got, w)
		}
	}
	t.Logf("without team: %d tokens", definitionTokens(t, res.Tools))
	if n := definitionTokens(t, res.Tools); n > 500 { // every parameter with a few words of description (issue 25.7)
		t.Errorf("the three tool definitions take %d tokens once loaded; keep them small (docs/BENCHMARKS.md)", n)
	}
}

// definitionTokens counts the tools as the client sends them once loaded:
// name, description and input schema, in cl100k tokens.
func definitionTokens(t *testing.T, tools []*sdk.Tool) int {
	n := 0
	for _, tool := range tools {
		def, err := json.Marshal(map[string]any{"name": "mcp__ctxkeep__" + tool.Name, "description": tool.Description, "input_schema": tool.InputSchema})
		if err != nil {
			t.Fatal(err)
		}
		n += breakdown.Tokenizer().Count(string(def))
	}
	return n
}

// show returns the stored output exactly, or the part asked for, with the
// command line's checks; each call counts as a retrieval by the agent,
// and the store is closed after every call.
func TestShow(t *testing.T) {
	f := newFixture(t, testOutput(800))
	if got := f.ok(t, "show", map[string]any{"id": entryID}); got != text.Printable(f.output) {
		t.Errorf("show returned %d bytes that differ from the %d stored, as a terminal shows them", len(got), len(f.output))
	}
	if got := f.ok(t, "show", map[string]any{"id": entryID[:6], "grep": "FAIL|lost quorum", "context": 1}); got !=
		"699-=== RUN   TestCase0699\n700:--- FAIL: TestQuorum (0.02s)\n701:    quorum_test.go:41: replica db-7 lost quorum at 12:04:33\n702-=== RUN   TestCase0701\n--\n800-=== RUN   TestCase0799\n801:FAIL\tgithub.com/x/replica\t0.91s\n" {
		t.Errorf("grep:\n%q", got)
	}
	if got := f.ok(t, "show", map[string]any{"id": entryID, "lines": "2:3"}); got != "=== RUN   TestCase0002\n=== RUN   TestCase0003\n" {
		t.Errorf("lines 2:3 = %q", got)
	}
	if got := f.ok(t, "show", map[string]any{"id": entryID, "head": 4, "tail": 1}); got != "=== RUN   TestCase0004\n" {
		t.Errorf("head 4, tail 1 = %q", got)
	}
	if got := f.ok(t, "show", map[string]any{"id": entryID, "failures": true}); !strings.Contains(got, "700:--- FAIL: TestQuorum") || !strings.Contains(got, "701:    quorum_test.go:41") {
		t.Errorf("failures = %q", got)
	}
	e, err := f.st.Entry(context.Background(), entryID)
	if err != nil || e.AccessCount != 5 || !e.LastAccess.Equal(t0.Add(time.Hour)) {
		t.Errorf("after five shows: %d retrievals, last %v (%v)", e.AccessCount, e.LastAccess, err)
	}
	if f.st.opened != 5 || f.st.closed != 5 {
		t.Errorf("store opened %d times, closed %d", f.st.opened, f.st.closed)
	}
}

// Each tool's errors come back as tool errors (isError) that say what was
// wrong, never as the whole text: unknown ids and keys, bad regular
// expressions, lines out of range, two narrowings, counts that are not
// numbers of lines, unknown arguments.
func TestToolErrors(t *testing.T) {
	f := newFixture(t, testOutput(1000))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"show", map[string]any{"id": "ffffffffffff"}, `no stored output has the id "ffffffffffff"`},
		{"show", map[string]any{"id": entryID, "grep": "quorum("}, "bad grep: error parsing regexp"},
		{"show", map[string]any{"id": entryID, "lines": "5000:5010"}, "lines 5000:5010: there are only 1001 lines"},
		{"show", map[string]any{"id": entryID, "lines": "9:2"}, `bad lines "9:2": want A:B with A <= B`},
		{"show", map[string]any{"id": entryID, "head": 0}, "bad head 0: want a number of lines, 1 or more"},
		{"show", map[string]any{"id": entryID, "context": 2}, "context needs grep"},
		{"show", map[string]any{"id": entryID, "lines": "1:3", "failures": true}, "choose one of lines, failures"},
		{"show", map[string]any{"id": entryID, "line": "1:3"}, "line"},
		{"show", map[string]any{}, "id"},
		{"recall", map[string]any{"key": "knothing"}, `nothing archived has the key "knothing"`},
		{"recall", map[string]any{"key": "5b2c0c:9"}, "session " + session + " has no archived turn 9"},
		{"recall", map[string]any{"key": "5b2c0c:x"}, `bad range "x"`},
		{"recall", map[string]any{"key": "ffffff:1"}, `no session "ffffff" in the archive`},
		{"recall", map[string]any{"key": "5b2c:1"}, `key "5b2c" is too short: give at least 6 characters`},
		{"recall", map[string]any{"key": "k770"}, `key "k770" is too short`},
		{"show", map[string]any{"id": "3f9a"}, `id "3f9a" is too short`},
		{"search", map[string]any{"query": "quorum", "session": "5b2c"}, `session "5b2c" is too short`},
		{"recall", map[string]any{"key": "k77043b020b9", "grep": "["}, "bad grep"},
		{"search", map[string]any{"query": "the of what"}, "nothing to search for"},
		{"search", map[string]any{"query": "quorum", "session": "zzzzzz"}, `no session "zzzzzz"`},
		{"search", map[string]any{"query": "quorum", "limit": 0}, "bad limit 0"},
	} {
		out, isErr := f.call(t, tc.tool, tc.args)
		if !isErr || !strings.Contains(out, tc.want) {
			t.Errorf("%s %v = %q (error: %t), want an error with %q", tc.tool, tc.args, out, isErr, tc.want)
		}
		if len(out) > 500 {
			t.Errorf("%s %v: an error of %d characters", tc.tool, tc.args, len(out))
		}
	}
	if e, _ := f.st.Entry(context.Background(), entryID); e.AccessCount != 0 {
		t.Errorf("failed shows counted %d retrievals", e.AccessCount)
	}
}

// recall returns what `ctxkeep recall` prints, by key or by turn, with the
// stored output put back in place, and narrows it as show does.
func TestRecall(t *testing.T) {
	f := newFixture(t, testOutput(50))
	chunks, err := recall.Chunks(context.Background(), f.st, "k77043b020b9")
	if err != nil {
		t.Fatal(err)
	}
	var exact strings.Builder
	recall.Write(context.Background(), &exact, f.st, chunks)
	if !strings.Contains(exact.String(), f.output) {
		t.Fatal("recall.Write did not put the stored output back")
	}
	want := text.Printable(exact.String()) // as a terminal shows it
	for _, key := range []string{"k77043b020b9", "k77043", "5b2c0c:3", session + ":3-3"} {
		if got := f.ok(t, "recall", map[string]any{"key": key}); got != want {
			t.Errorf("recall %s:\n%s\nwant:\n%s", key, got, want)
		}
	}
	if got := f.ok(t, "recall", map[string]any{"key": "5b2c0c:1-3", "grep": "^(user|assistant):"}); got != "2:user: hello\n3:assistant: hello, what shall we test?\n--\n"+
		"5:user: run the replica tests\n6:assistant: Bash `go test ./...`\n--\n59:assistant: TestQuorum fails.\n" {
		t.Errorf("recall 5b2c:1-3 grep:\n%s", got)
	}
}

// search finds a turn by an exact line of the output it stored, and gives
// the line numbered as recall numbers it: recall with lines="N:N" returns
// that line.
func TestSearch(t *testing.T) {
	f := newFixture(t, testOutput(1000))
	out := f.ok(t, "search", map[string]any{"query": "replica db-7 lost quorum at 12:04:33"})
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "k77043b020b9 · session 5b2c0c9e · turn 3 · ") || !strings.HasSuffix(first, "ran go test ./...: TestQuorum failed") {
		t.Fatalf("first hit: %q\n%s", first, out)
	}
	m := regexp.MustCompile(`(?m)^  (\d+):(.*replica db-7 lost quorum at 12:04:33)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no matching line:\n%s", out)
	}
	if got := f.ok(t, "recall", map[string]any{"key": "k77043b020b9", "lines": m[1] + ":" + m[1]}); strings.TrimRight(got, "\n") != m[2] {
		t.Errorf("recall lines %s:%s = %q, want %q", m[1], m[1], got, m[2])
	}
	if strings.Count(out, "\n  ") > 2*linesPerHit {
		t.Errorf("more than %d lines a hit:\n%s", linesPerHit, out)
	}
	// Control sequences never reach the model from a search.
	if out := f.ok(t, "search", map[string]any{"query": "replica", "session": "5b2c0c"}); strings.Contains(out, "\x1b") || !strings.Contains(out, "FAIL\tgithub.com/x/replica") {
		t.Errorf("search replica:\n%q", out)
	}
	if out := f.ok(t, "search", map[string]any{"query": "kubernetes"}); out != "no match for \"kubernetes\" in this project's sessions\n" {
		t.Errorf("no match: %q", out)
	}
}

// A result over MaxResult characters is narrowed to its first and last
// lines, and the note between them names the lines left out: asking for
// them gives back exactly what is missing.
func TestLargeResultsAreBounded(t *testing.T) {
	for _, n := range []int{1300, 5000} {
		f := newFixture(t, testOutput(n))
		got := f.ok(t, "show", map[string]any{"id": entryID})
		if c := len([]rune(got)); c > MaxResult {
			t.Fatalf("show returned %d characters", c)
		}
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^\[ctxkeep: lines (\d+)–(\d+) of %d left out \(\d+ characters\); ask for them with lines="(\d+:\d+)", in parts, or with grep\]\n`, n+1)).FindStringSubmatchIndex(got)
		if m == nil {
			t.Fatalf("no note:\n%s", got)
		}
		if !strings.HasPrefix(got, "=== RUN   TestCase0001\n") || !strings.HasSuffix(got, "0.91s\n") {
			t.Errorf("the bounded result does not keep both ends")
		}
		spec := got[m[6]:m[7]]
		rest := f.ok(t, "show", map[string]any{"id": entryID, "lines": spec})
		if n == 1300 && got[:m[0]]+rest+got[m[1]:] != text.Printable(f.output) {
			t.Errorf("head + lines %s + tail differ from the output", spec)
		}
		grep := f.ok(t, "show", map[string]any{"id": entryID, "grep": "RUN"})
		if len([]rune(grep)) > MaxResult || !strings.Contains(grep, "of this result left out") || !strings.Contains(grep, "narrow further") {
			t.Errorf("bounded grep: %d characters, note: %v", len(grep), regexp.MustCompile(`\[ctxkeep:.*\]`).FindString(grep))
		}
	}
}

// One line longer than the bound (minified JSON, say) is shown in part.
func TestOneHugeLine(t *testing.T) {
	huge := strings.Repeat("x", 3*MaxResult)
	out := bound(huge, false)
	if n := len([]rune(out)); n > MaxResult || !strings.HasPrefix(out, "xxx") ||
		!strings.Contains(out, "[ctxkeep: lines 1–1 of 1 left out (") || !strings.Contains(out, "line 1 shown in part") {
		t.Errorf("bound of one huge line (%d characters):\n%s", n, out[len(out)-300:])
	}
	if bound("small\n", false) != "small\n" {
		t.Error("a small result was changed")
	}
}

// fakeTeam is a team archive on a local store, every session alice's.
type fakeTeam struct{ ctxkeep.Store }

func (f fakeTeam) SearchTeam(ctx context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, map[string]string, error) {
	hits, err := f.SearchChunks(ctx, q)
	owners := map[string]string{}
	for _, h := range hits {
		owners[h.Key] = "alice"
	}
	return hits, owners, err
}

// With a team archive configured, search and recall take team: search
// finds a teammate's step, saying whose and in which team project, and
// recall prints it; without one the parameter is not offered (it would
// cost every session context) and refused.
func TestTeamScope(t *testing.T) {
	ctx := context.Background()
	remote := storetest.Local(t, t.TempDir())
	step := ctxkeep.Chunk{Key: "k22222222222", SessionID: "9e1d0c3b-7a2f-4e0a-8c1b-2d3e4f5a6b7c", Project: "shop", Kind: ctxkeep.KindStep, Turn: 2, Step: 1,
		Start: t0, End: t0, Prompt: "fix the refund", Summary: "ran the refund tests",
		Body: "user: fix the refund\nassistant: Bash `go test ./refund`\nresult:\n--- FAIL: TestRefund\n    refund_test.go:42: got 1999 want 2000\n"}
	if _, err := remote.SaveChunks(ctx, step.SessionID, []ctxkeep.Chunk{step}, ctxkeep.ArchiveCursor{Turn: 2}); err != nil {
		t.Fatal(err)
	}
	opened := 0
	f := newFixture(t, testOutput(10), func(o *Options) {
		o.TeamProject = "shop"
		o.Team = func(context.Context) (Team, func(), error) {
			opened++
			return fakeTeam{remote}, func() {}, nil
		}
	})
	res, err := f.client.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		_, has := tool.InputSchema.(map[string]any)["properties"].(map[string]any)["team"]
		if has != (tool.Name != "show") {
			t.Errorf("%s: team parameter %v", tool.Name, has)
		}
	}
	t.Logf("with team: %d tokens", definitionTokens(t, res.Tools))
	if n := definitionTokens(t, res.Tools); n > 550 {
		t.Errorf("with team, the three definitions take %d tokens", n)
	}
	out := f.ok(t, "search", map[string]any{"query": "got 1999 want 2000", "team": true})
	for _, want := range []string{"k22222222222 · alice · shop · session 9e1d0c3b · step 2.1", "refund_test.go:42: got 1999 want 2000"} {
		if !strings.Contains(out, want) {
			t.Errorf("team search lacks %q:\n%s", want, out)
		}
	}
	if out := f.ok(t, "search", map[string]any{"query": "got 1999 want 2000"}); !strings.HasPrefix(out, "no match") {
		t.Errorf("the local search found the team's step:\n%s", out)
	}
	if out := f.ok(t, "recall", map[string]any{"key": "k22222222222", "team": true, "grep": "refund_test"}); !strings.Contains(out, "refund_test.go:42: got 1999 want 2000") {
		t.Errorf("team recall:\n%s", out)
	}
	if opened != 2 {
		t.Errorf("the team archive was opened %d times for two team calls", opened)
	}

	plain := newFixture(t, testOutput(10))
	if out, isErr := plain.call(t, "search", map[string]any{"query": "refund", "team": true}); !isErr {
		t.Errorf("team search without a team archive:\n%s", out)
	}
}

// show and recall give the model the text as a terminal shows it: no
// escape sequence of a coloured output (colours, a window title, a
// hyperlink, a progress line, a C1 CSI) reaches it, and the lines keep
// their numbers, so that a part asked for is the part meant.
func TestResultsAsATerminalShowsThem(t *testing.T) {
	var b strings.Builder
	b.WriteString("\x1b]0;go test\x07\x1b[32m=== RUN\x1b[0m   TestQuorum\n")
	for i := 2; i < 40; i++ {
		fmt.Fprintf(&b, "\x1b[2K\r[%d%%]\r\x1b[32mok\x1b[0m %d\n", i, i)
	}
	b.WriteString("    \x1b[1mquorum_test.go:41\x1b[22m: replica \x1b]8;;file:///q.go\x1b\\db-7\x1b]8;;\x1b\\ lost quorum\n\xc2\x9b31m--- FAIL: TestQuorum\xc2\x9b0m\n")
	f := newFixture(t, b.String())
	has := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f })
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"show", map[string]any{"id": entryID}, "ok 39\n    quorum_test.go:41: replica db-7 lost quorum\n--- FAIL: TestQuorum\n"},
		{"show", map[string]any{"id": entryID, "grep": "lost quorum"}, "40:    quorum_test.go:41: replica db-7 lost quorum\n"},
		{"show", map[string]any{"id": entryID, "lines": "1:2"}, "=== RUN   TestQuorum\nok 2\n"},
		{"show", map[string]any{"id": entryID, "failures": true}, "41:--- FAIL: TestQuorum"},
		{"recall", map[string]any{"key": "k77043b020b9"}, "quorum_test.go:41: replica db-7 lost quorum\n--- FAIL: TestQuorum\n"},
		{"recall", map[string]any{"key": "k77043b020b9", "grep": "lost quorum"}, ":    quorum_test.go:41: replica db-7 lost quorum\n"},
	} {
		got := f.ok(t, c.tool, c.args)
		if has(got) || !strings.Contains(got, c.want) {
			t.Errorf("%s %v = %q; want no control sequence, and %q", c.tool, c.args, got, c.want)
		}
	}
}

// The server serves its project: another project's stored output, step or
// session is not found by any prefix or any search, and a prefix that
// starts ids in both resolves to this project's. mcp.scope = "all"
// (AllProjects) reaches them.
func TestProjectScope(t *testing.T) {
	const (
		theirID      = "3f9a12ffffff" // shares a prefix with entryID
		theirSession = "b7e1d2c3-0000-4000-8000-000000000000"
		theirKey     = "k9b0000000b1"
		secret       = "DEPLOY_KEY=b-only-9f8e7d"
	)
	f := newFixture(t, testOutput(10))
	ctx := context.Background()
	if _, err := f.st.PutEntry(ctx, ctxkeep.Entry{ID: theirID, SessionID: theirSession, Project: "/home/you/other", Tool: "Bash", CreatedAt: t0}, []byte(secret+"\n")); err != nil {
		t.Fatal(err)
	}
	theirs := ctxkeep.Chunk{Key: theirKey, SessionID: theirSession, Project: "/home/you/other", Kind: ctxkeep.KindStep, Turn: 1, Step: 1, Start: t0, End: t0,
		Prompt: "deploy", Summary: "deployed", Body: "user: deploy\n← result: " + archive.RefPrefix + theirID + "]]\n",
		Meta: ctxkeep.Meta{Entries: []string{theirID}}, Outputs: []string{secret}}
	if _, err := f.st.SaveChunks(ctx, theirSession, []ctxkeep.Chunk{theirs}, ctxkeep.ArchiveCursor{Turn: 1}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"show", map[string]any{"id": theirID}, `no stored output has the id "` + theirID + `"`},
		{"recall", map[string]any{"key": theirKey}, `nothing archived has the key "` + theirKey + `"`},
		{"recall", map[string]any{"key": "k9b000"}, `nothing archived has the key "k9b000"`},
		{"recall", map[string]any{"key": theirSession[:8] + ":1"}, `no session "b7e1d2c3" in the archive`},
		{"search", map[string]any{"query": "deploy", "session": theirSession}, "no session"},
	} {
		if out, isErr := f.call(t, tc.tool, tc.args); !isErr || !strings.Contains(out, tc.want) || strings.Contains(out, secret) {
			t.Errorf("%s %v = %q (error: %t), want an error with %q", tc.tool, tc.args, out, isErr, tc.want)
		}
	}
	if out := f.ok(t, "search", map[string]any{"query": "DEPLOY_KEY deploy"}); strings.Contains(out, secret) || strings.Contains(out, theirKey) {
		t.Errorf("search reached the other project:\n%s", out)
	}
	if got := f.ok(t, "show", map[string]any{"id": "3f9a12"}); got != text.Printable(f.output) {
		t.Errorf("a prefix of ids in both projects gave %q, want this project's output", got)
	}

	all := newFixture(t, testOutput(10), func(o *Options) { o.AllProjects = true })
	if _, err := all.st.PutEntry(ctx, ctxkeep.Entry{ID: theirID, SessionID: theirSession, Project: "/home/you/other", Tool: "Bash", CreatedAt: t0}, []byte(secret+"\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := all.st.SaveChunks(ctx, theirSession, []ctxkeep.Chunk{theirs}, ctxkeep.ArchiveCursor{Turn: 1}); err != nil {
		t.Fatal(err)
	}
	if got := all.ok(t, "show", map[string]any{"id": theirID}); got != secret+"\n" {
		t.Errorf("mcp.scope = all: show %s = %q", theirID, got)
	}
	if got := all.ok(t, "recall", map[string]any{"key": theirSession[:8] + ":1"}); !strings.Contains(got, secret) {
		t.Errorf("mcp.scope = all: recall:\n%s", got)
	}
	if out, isErr := all.call(t, "show", map[string]any{"id": "3f9a12"}); !isErr || !strings.Contains(out, "more than one") {
		t.Errorf("mcp.scope = all: an ambiguous prefix: %q", out)
	}

	lost := newFixture(t, testOutput(10), func(o *Options) { o.Project = "" })
	if out, isErr := lost.call(t, "show", map[string]any{"id": entryID}); !isErr || !strings.Contains(out, "does not know its project") {
		t.Errorf("a server without a project: %q", out)
	}
}
