package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var spotterSessions = realdata.Spotter

// TestFailureLinesSurviveInViews: for every output of the five spotter
// sessions that the policy swaps out, the view lists its failures with
// their causes in order — each marker and first cause first, up to the
// cap — and counts the rest; unless its runner reports the run as
// passing, when it lists none (what looked like failures in it — a
// warning a passing vitest run logs — is noise) and says so.
func TestFailureLinesSurviveInViews(t *testing.T) {
	cfg := config.Default()
	r, err := Files(spotterSessions(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Views) < 50 {
		t.Fatalf("only %d outputs swapped out", len(r.Views))
	}
	checked, condensed, passing := 0, 0, 0
	for _, v := range r.Views {
		fs, count := swap.Failures(v.Original, cfg.View.KeyPatterns)
		if run := swap.ReadRun(v.Input, v.Original); swap.HasFailures(v.Tool) && run.Passing(v.Exit) {
			if count.Lines > 0 {
				passing++
			}
			if !strings.Contains(v.View, " reports ") || strings.Contains(v.View, " failure line") {
				t.Errorf("%s %s: a passing run (%s) with failure lines:\n%s", filepath.Base(v.Transcript), v.ToolUseID, run.Outcome(v.Exit), v.View)
			}
			continue
		}
		if v.Kind == swap.KindCondensed {
			condensed++
			checkCondensed(t, v)
			continue
		}
		if !swap.HasFailures(v.Tool) || count.Lines == 0 {
			continue
		}
		checked++
		first := swap.KeyLines(fs, cfg.View.KeyPatterns)
		for _, l := range first {
			prefix := fmt.Sprintf("  L%d: %s", l.N, firstRunes(text.Printable(l.Text), 30)) // as a terminal shows it, as views do
			if !strings.Contains(v.View, prefix) {
				t.Errorf("%s %s: failure line %d missing from the view:\n%s", filepath.Base(v.Transcript), v.ToolUseID, l.N, v.View)
			}
		}
		if rest := count.Lines - len(first); rest > 0 && !strings.Contains(v.View, fmt.Sprintf("… %d more ", rest)) {
			t.Errorf("%s %s: %d failure lines, no count of the %d not shown:\n%s", filepath.Base(v.Transcript), v.ToolUseID, count.Lines, rest, v.View)
		}
		if len(v.View) > cfg.View.Budget {
			t.Errorf("%s: view of %d bytes", v.ToolUseID, len(v.View))
		}
	}
	if checked == 0 || condensed == 0 {
		t.Fatalf("%d swapped outputs with failure lines, %d condensed: the test checked nothing", checked, condensed)
	}
	t.Logf("%d views, %d with failure lines; %d condensed; %d passing runs whose would-be failure lines are noise", len(r.Views), checked, condensed, passing)
}

// checkCondensed: a condensed output keeps every failure line whole (each
// marker and all its causes), and is shorter than the original.
func checkCondensed(t *testing.T, v View) {
	t.Helper()
	kept := map[string]bool{}
	for _, l := range strings.Split(v.View, "\n") {
		kept[l] = true
	}
	fs, _ := swap.Failures(v.Original, -1)
	for _, f := range fs {
		for _, l := range f.Lines() {
			if !kept[l.Text] {
				t.Errorf("%s %s: failure line %d folded: %q\n%s", filepath.Base(v.Transcript), v.ToolUseID, l.N, l.Text, v.View)
			}
		}
	}
	if len([]rune(v.View)) >= len([]rune(v.Original)) {
		t.Errorf("%s %s: condensed to %d chars from %d", filepath.Base(v.Transcript), v.ToolUseID, len([]rune(v.View)), len([]rune(v.Original)))
	}
}

func TestReplayTotals(t *testing.T) {
	r, err := Files(spotterSessions(t), config.Default())
	if err != nil {
		t.Fatal(err)
	}
	sum := Tally{}
	for _, tt := range r.ByTool {
		sum.add(tt)
	}
	if sum.CharsBefore != r.Total.CharsBefore || sum.CharsAfter != r.Total.CharsAfter || r.BadLines != 0 {
		t.Fatalf("totals do not add up: %+v vs %+v", sum, r.Total)
	}
	if r.Total.CharsAfter >= r.Total.CharsBefore || r.Total.Swapped == 0 {
		t.Fatalf("nothing saved: %+v", r.Total)
	}
	if r.Total.Pointers == 0 {
		t.Fatalf("no unchanged re-read answered by a pointer: %+v", r.Total)
	}
	if r.Total.Condensed == 0 || r.Total.CondensedTo*10 > r.Total.CondensedChars*7 {
		t.Fatalf("condensers: %d outputs, %d → %d chars", r.Total.Condensed, r.Total.CondensedChars, r.Total.CondensedTo)
	}
	t.Logf("before %d chars, after %d (%.1f%%), %d of %d results swapped, %d condensed (%d → %d chars), %d re-reads pointed, %d failed commands wrapped; failure lines %d, shown %d",
		r.Total.CharsBefore, r.Total.CharsAfter, 100*r.Total.Ratio(), r.Total.Swapped, r.Total.Calls, r.Total.Condensed, r.Total.CondensedChars, r.Total.CondensedTo,
		r.Total.Pointers, r.Total.Wrapped, r.Total.FailureLines, r.Total.FailureShown)
	for _, tt := range r.ByTool {
		t.Logf("  %-12s %4d calls %4d swapped %8d → %8d (%.0f%%)", tt.Tool, tt.Calls, tt.Swapped, tt.CharsBefore, tt.CharsAfter, 100*tt.Ratio())
	}
}

// A small hand-made session: one large Bash result is swapped, a small
// test run condensed, a small one and a CLAUDE.md read stay.
func TestReplayHandMade(t *testing.T) {
	big := strings.Repeat("=== RUN   TestX\n", 1000) + "--- FAIL: TestX\n"
	run := strings.Repeat("=== RUN   TestY\n--- PASS: TestY (0.00s)\n", 80) + "PASS\nok  \texample.com/y\t0.01s\n"
	src := strings.Repeat("func f() {}\n", 200)
	lines := []string{
		assistant("a0", `{"type":"tool_use","id":"t0","name":"Bash","input":{"command":"go test -v ./..."}}`),
		user("u0", `{"type":"tool_result","tool_use_id":"t0","content":`+quote(run)+`}`, `{"stdout":`+quote(run)+`,"stderr":"","interrupted":false,"isImage":false}`),
		assistant("a1", `{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"./scripts/e2e.sh"}}`),
		user("u1", `{"type":"tool_result","tool_use_id":"t1","content":`+quote(big)+`}`, `{"stdout":`+quote(big)+`,"stderr":"","interrupted":false,"isImage":false}`),
		assistant("a2", `{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}`),
		user("u2", `{"type":"tool_result","tool_use_id":"t2","content":"a\nb"}`, `{"stdout":"a\nb","stderr":"","interrupted":false,"isImage":false}`),
		assistant("a4", `{"type":"tool_use","id":"t4","name":"Read","input":{"file_path":"/p/x.go"}}`),
		user("u4", `{"type":"tool_result","tool_use_id":"t4","content":"(numbered)"}`, readResult("/p/x.go", src)),
		assistant("a5", `{"type":"tool_use","id":"t5","name":"Read","input":{"file_path":"/p/x.go"}}`),
		user("u5", `{"type":"tool_result","tool_use_id":"t5","content":"(numbered)"}`, readResult("/p/x.go", src)),
		`{"type":"system","subtype":"compact_boundary","uuid":"b1","isSidechain":false,"compactMetadata":{"trigger":"auto","preTokens":1000}}`,
		assistant("a6", `{"type":"tool_use","id":"t6","name":"Read","input":{"file_path":"/p/x.go"}}`),
		user("u6", `{"type":"tool_result","tool_use_id":"t6","content":"(numbered)"}`, readResult("/p/x.go", src)),
		assistant("a3", `{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/p/CLAUDE.md"}}`),
		user("u3", `{"type":"tool_result","tool_use_id":"t3","content":`+quote(strings.Repeat("rule\n", 3000))+`}`, `{"type":"text","file":{"filePath":"/p/CLAUDE.md","content":`+quote(strings.Repeat("rule\n", 3000))+`,"numLines":3000,"startLine":1,"totalLines":3000}}`),
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	r, err := Files([]string{path}, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	// The second Read of x.go points to the first; the third, after the
	// compaction, is whole again.
	if r.Total.Calls != 7 || r.Total.Swapped != 1 || r.Total.Condensed != 1 || r.Total.Pointers != 1 || r.Total.FailureLines != 1 || r.Total.FailureShown != 1 {
		t.Fatalf("total = %+v", r.Total)
	}
	if len(r.Views) != 3 || !strings.Contains(r.Views[1].View, "L1001: --- FAIL: TestX") ||
		r.Views[0].Kind != swap.KindCondensed || !strings.Contains(r.Views[0].View, "passed tests: 80") ||
		r.Views[2].Kind != swap.KindPointer || r.Views[2].ToolUseID != "t5" {
		t.Fatalf("views = %+v", r.Views)
	}
	if r.Total.CondensedChars != len(run) || r.Total.CondensedTo != len([]rune(r.Views[0].View)) {
		t.Fatalf("condensed %d → %d", r.Total.CondensedChars, r.Total.CondensedTo)
	}
	pointer := len([]rune(r.Views[2].View)) + readPrefixes(r.Views[2].View)
	wantAfter := r.Total.CharsBefore - len(big) + len([]rune(r.Views[1].View)) - len(run) + len([]rune(r.Views[0].View)) - len("(numbered)") + pointer
	if r.Total.CharsAfter != wantAfter {
		t.Fatalf("after = %d, want %d", r.Total.CharsAfter, wantAfter)
	}
}

func assistant(uuid, block string) string {
	return `{"type":"assistant","uuid":"` + uuid + `","isSidechain":false,"message":{"id":"m` + uuid + `","role":"assistant","content":[` + block + `]}}`
}

func user(uuid, block, structured string) string {
	return `{"type":"user","uuid":"` + uuid + `","isSidechain":false,"message":{"role":"user","content":[` + block + `]},"toolUseResult":` + structured + `}`
}

func readResult(path, content string) string {
	return `{"type":"text","file":{"filePath":` + quote(path) + `,"content":` + quote(content) + `,"numLines":200,"startLine":1,"totalLines":200}}`
}

func quote(s string) string {
	return fmt.Sprintf("%q", s)
}

func firstRunes(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

// A Codex rollout is replayed as the Codex hook sees its outputs: the
// command's own output (not the header Codex puts before it for the
// model), failures included, within what Codex takes from a hook.
func TestCodexRollout(t *testing.T) {
	big := strings.Repeat("=== RUN   TestY\n--- PASS: TestY (0.00s)\n", 400) + "--- FAIL: TestX (0.01s)\n    x_test.go:9: got 1, want 2\nFAIL\n"
	seen := "Chunk ID: 1f2e\nWall time: 1.2 seconds\nProcess exited with code 1\nOutput:\n" + big
	docs := strings.Repeat("a document line\n", 600)
	lines := []string{
		`{"timestamp":"2026-11-27T10:00:00Z","type":"session_meta","payload":{"id":"0199aaaa-bbbb-cccc-dddd-eeeeffff0000","cwd":"/p","cli_version":"0.169.0"}}`,
		`{"timestamp":"2026-11-27T10:00:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":` + quote(`{"cmd":"./scripts/e2e.sh"}`) + `,"call_id":"c1"}}`,
		`{"timestamp":"2026-11-27T10:00:02Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","aggregated_output":` + quote(big) + `,"exit_code":1}}}`,
		`{"timestamp":"2026-11-27T10:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + quote(seen) + `}}`,
		`{"timestamp":"2026-11-27T10:00:03Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":` + quote(`{"cmd":"ls"}`) + `,"call_id":"c2"}}`,
		`{"timestamp":"2026-11-27T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"a\nb"}}`,
		`{"timestamp":"2026-11-27T10:00:04Z","type":"response_item","payload":{"type":"function_call","name":"search","namespace":"mcp__docs","arguments":"{}","call_id":"c3"}}`,
		`{"timestamp":"2026-11-27T10:00:05Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":` + quote(docs) + `}}`,
	}
	path := filepath.Join(t.TempDir(), "rollout-2026-11-27T10-00-00-0199aaaa-bbbb-cccc-dddd-eeeeffff0000.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	r, err := Files([]string{path}, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Calls != 3 || r.Total.Swapped != 2 || r.Total.CharsBefore != len(seen)+len("a\nb")+len(docs) {
		t.Fatalf("total = %+v", r.Total)
	}
	if len(r.Views) != 2 || r.Views[0].Tool != "Bash" || r.Views[1].Tool != "mcp__docs__search" {
		t.Fatalf("views = %+v", r.Views)
	}
	v := r.Views[0].View
	for _, want := range []string{"--- FAIL: TestX", "got 1, want 2", "exit status 1", "ctxkeep show "} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(r.Views[0].Original, "Chunk ID") || len(v) > codex.MaxHookText {
		t.Errorf("replayed Codex's header, or a view of %d bytes (Codex takes %d):\n%s", len(v), codex.MaxHookText, v)
	}
	if after := r.Total.CharsBefore - len(seen) - len(docs) + len([]rune(v)) + len([]rune(r.Views[1].View)); r.Total.CharsAfter != after {
		t.Fatalf("after = %d, want %d", r.Total.CharsAfter, after)
	}
}

// A file that is neither a transcript nor a rollout is refused by name,
// rather than replayed as one with no tool results.
func TestNotATranscript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tui.jsonl")
	os.WriteFile(path, []byte(`{"ts":"2025-08-09T15:51:04.827Z","dir":"meta","kind":"session_start"}`+"\n"), 0o600)
	if _, err := Files([]string{path}, config.Default()); err == nil || !strings.Contains(err.Error(), "neither a Claude Code transcript nor a Codex rollout") {
		t.Fatalf("err = %v", err)
	}
	empty := filepath.Join(t.TempDir(), "new.jsonl")
	os.WriteFile(empty, nil, 0o600)
	if _, err := Files([]string{empty}, config.Default()); err != nil {
		t.Fatalf("an empty transcript (a session just started): %v", err)
	}
}

// originalsOf are the originals of session s1, by tool_use_id, each
// replaced by the text of replacements (by default, the view of
// TestReplacedWhenRecorded).
type originalsOf map[string]string

var replacements = map[string]string{}

func (o originalsOf) Replacement(session, id string) (string, bool) {
	_, ok := o[id]
	r, set := replacements[id]
	if !set {
		r = recordedView
	}
	return proof.Sum(r), ok && session == "s1"
}

func (o originalsOf) Original(session, id string) (string, error) {
	s, ok := o[id]
	if !ok || session != "s1" || s == "" {
		return "", ctxkeep.ErrNotFound
	}
	return s, nil
}

func (o originalsOf) Stored(session, id string) (string, error) {
	s, ok := o[id]
	if !ok || session != "s1" || s == "" {
		return "", ctxkeep.ErrNotFound
	}
	return s, nil
}

const recordedView = "[ctxkeep] Bash output swapped out of the context, kept exactly as id 0123456789ab: 16,016 chars."

// A session recorded with ctxkeep holds views: replayed with the stored
// originals, it counts what the model would have seen without ctxkeep.
func TestReplacedWhenRecorded(t *testing.T) {
	big := strings.Repeat("=== RUN   TestX\n", 1000) + "--- FAIL: TestX\n"
	view := recordedView
	lines := []string{
		assistant("a1", `{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"./scripts/e2e.sh"}}`),
		user("u1", `{"type":"tool_result","tool_use_id":"t1","content":`+quote(view)+`}`, `{"stdout":`+quote(view)+`,"stderr":"","interrupted":false,"isImage":false}`),
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	without, err := Files([]string{path}, config.Default())
	if err != nil || without.Total.Swapped != 0 || without.Total.CharsBefore != len(view) {
		t.Fatalf("without the originals: %+v, %v", without.Total, err)
	}
	r, err := FilesAs([]string{path}, []string{path}, config.Default(), originalsOf{"t1": big})
	if err != nil {
		t.Fatal(err)
	}
	if r.Replaced != 1 || r.Total.Swapped != 1 || r.Total.CharsBefore != len(big) || r.Total.FailureLines != 1 || !strings.Contains(r.Views[0].View, "--- FAIL: TestX") {
		t.Fatalf("with the originals: %d replaced, total %+v", r.Replaced, r.Total)
	}
}

// A replacement ctxkeep returned counts from its stored original only
// when the transcript holds it (the client applied it): one the client
// did not apply left the original in the transcript, which counts as it
// is; one whose original the store no longer has counts as its view, and
// each is counted apart.
func TestReplacedOnlyWhenApplied(t *testing.T) {
	big := strings.Repeat("=== RUN   TestX\n", 1000) + "--- FAIL: TestX\n"
	refused := strings.Repeat("=== RUN   TestY\n", 500)
	lines := []string{
		assistant("a1", `{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"./scripts/e2e.sh"}}`),
		user("u1", `{"type":"tool_result","tool_use_id":"t1","content":`+quote(recordedView)+`}`, `{"stdout":`+quote(recordedView)+`,"stderr":"","interrupted":false,"isImage":false}`),
		assistant("a2", `{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"./scripts/unit.sh"}}`),
		user("u2", `{"type":"tool_result","tool_use_id":"t2","content":`+quote(refused)+`}`, `{"stdout":`+quote(refused)+`,"stderr":"","interrupted":false,"isImage":false}`),
		assistant("a3", `{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"./scripts/lint.sh"}}`),
		user("u3", `{"type":"tool_result","tool_use_id":"t3","content":`+quote(recordedView)+`}`, `{"stdout":`+quote(recordedView)+`,"stderr":"","interrupted":false,"isImage":false}`),
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	r, err := FilesAs([]string{path}, []string{path}, config.Default(), originalsOf{"t1": big, "t2": refused + "and more the hook got", "t3": ""})
	if err != nil {
		t.Fatal(err)
	}
	if r.Replaced != 1 || r.NotApplied != 1 || r.Unavailable != 1 {
		t.Fatalf("%d replaced, %d not applied, %d unavailable; want 1 each", r.Replaced, r.NotApplied, r.Unavailable)
	}
	if want := len(big) + len(refused) + len(recordedView); r.Total.CharsBefore != want {
		t.Errorf("before = %d, want %d: the original, what the transcript holds of the one not applied, the view of the one unavailable", r.Total.CharsBefore, want)
	}
}

// Replayed twice, the same transcripts give the same report, to the
// byte: the tallies come out of a map, and tools with as many characters
// (short.jsonl has two) were listed in the map's order.
func TestReplayIsDeterministic(t *testing.T) {
	all := realdata.SpotterAll(t)
	short := realdata.File(t, "cc-sessions-spotter/short.jsonl")
	var first []byte
	for i := range 10 {
		var docs []byte
		for _, paths := range [][]string{{short}, {all[0]}, {short}, {short}} {
			r, err := Files(paths, config.Default())
			if err != nil {
				t.Fatal(err)
			}
			doc, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(append(docs, doc...), '\n')
		}
		if i == 0 {
			first = docs
		} else if !bytes.Equal(docs, first) {
			t.Fatalf("run %d differs from the first:\n%s\n%s", i+1, first, docs)
		}
	}
}

// A Gemini CLI chat is replayed as the Gemini hook sees its outputs: the
// shell command's own output (without the CLI's <untrusted_context>
// wrapper), failures included, with no cap on the view; a message the
// CLI writes again as it grows counts once. An output ctxkeep replaced
// while the session ran (the chat holds its view, as a deny's error)
// counts from the original the view names, as much as the CLI would have
// given the model.
func TestGeminiChat(t *testing.T) {
	big := strings.Repeat("=== RUN   TestY\n--- PASS: TestY (0.00s)\n", 400) + "--- FAIL: TestX (0.01s)\n    x_test.go:9: got 1, want 2\nFAIL"
	seen := "<untrusted_context>\nOutput: " + big + "\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>"
	small := "<untrusted_context>\nOutput: a\nb\nProcess Group PGID: 8\n</untrusted_context>"
	original := strings.Repeat("row\n", 15_000) // 60,000 characters: the CLI would have cut it to 40,000
	view := "[ctxkeep] Bash output swapped out of the context, kept exactly as id 0123456789ab: 60,000 chars, 15,000 lines; exit status 0.\nGet any part back exactly: run `ctxkeep show 0123456789ab --lines A:B`.\n"
	call := func(id, command, response string) string {
		return `{"id":"` + id + `","name":"run_shell_command","args":{"command":` + quote(command) + `},"result":[{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":` + response + `}}],"status":"success"}`
	}
	lines := []string{
		`{"sessionId":"s1","projectHash":"abc","startTime":"2026-11-28T17:59:24.516Z","lastUpdated":"2026-11-28T17:59:24.516Z","kind":"main"}`,
		`{"id":"u1","timestamp":"2026-11-28T17:59:24.787Z","type":"user","content":[{"text":"go"}]}`,
		`{"id":"m1","timestamp":"2026-11-28T17:59:25.864Z","type":"gemini","content":"","model":"gemini-2.5-pro"}`,
		`{"id":"m1","timestamp":"2026-11-28T17:59:25.864Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[` +
			call("c1", "./scripts/e2e.sh", `{"output":`+quote(seen)+`}`) + `,` +
			call("c2", "ls", `{"output":`+quote(small)+`}`) + `,` +
			call("c3", "seq 1 15000", `{"error":`+quote(view)+`}`) + `]}`,
	}
	path := filepath.Join(t.TempDir(), "session-2026-11-28T17-59-s1.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	r, err := FilesAs([]string{path}, []string{path}, config.Default(), originalsOf{"0123456789ab": original})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Calls != 3 || r.Total.Swapped != 2 || r.Replaced != 1 || r.BadLines != 0 {
		t.Fatalf("report = %+v", r)
	}
	if want := len(seen) + len(small) + 40_000; r.Total.CharsBefore != want {
		t.Errorf("before = %d, want %d", r.Total.CharsBefore, want)
	}
	if len(r.Views) != 2 || r.Views[0].Tool != "Bash" || r.Views[0].Exit != 1 || r.Views[1].Original != original {
		t.Fatalf("views = %+v", r.Views)
	}
	v := r.Views[0].View
	for _, want := range []string{"--- FAIL: TestX", "got 1, want 2", "exit status 1", "ctxkeep show "} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(r.Views[0].Original, "untrusted_context") || strings.Contains(r.Views[0].Original, "Exit Code") {
		t.Errorf("replayed the CLI's wrapper:\n%s", r.Views[0].Original[len(r.Views[0].Original)-200:])
	}
	// Without the store, the view counts as the chat holds it.
	r, err = Files([]string{path}, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	if r.Replaced != 0 || r.Total.Swapped != 1 {
		t.Errorf("without the originals: %+v", r)
	}
}
