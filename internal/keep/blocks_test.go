package keep

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n%s", name, got)
	}
}

func fixtureState(t *testing.T) (archive.State, []ctxkeep.Chunk) {
	st := newStore(t)
	path := fixture(t, t.TempDir())
	s := Session{ID: "fixture", Project: "/p", Transcript: path}
	state, _, _, err := State(ctx, st, s, func(c string) bool { return swap.RunsAny(c, []string{"go test", "go vet"}) })
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := st.Chunks(ctx, "fixture") // with their bodies, for the latest reply
	if err != nil {
		t.Fatal(err)
	}
	return state, chunks
}

func TestStateOfTheFixture(t *testing.T) {
	s, chunks := fixtureState(t)
	var steps []string
	for _, c := range chunks {
		steps = append(steps, fmt.Sprintf("%d.%d", c.Turn, c.Step))
	}
	// A response that only calls tools joins the step before it, up to
	// four responses; a response with text opens a step.
	if want := "1.1 1.2 1.3 2.1 2.2 2.3"; s.Turns != 2 || strings.Join(steps, " ") != want {
		t.Fatalf("%d turns, steps %v; want 2 turns, steps %s", s.Turns, steps, want)
	}
	if len(s.Tasks) != 2 || s.Tasks[0].Status != "completed" || s.Tasks[0].Completed != 2 || s.Tasks[1].Status != "pending" {
		t.Errorf("tasks = %+v", s.Tasks)
	}
	if len(s.Files) != 2 || s.Files[0].Path != "/p/internal/api/limit.go" || s.Files[0].Edits != 2 {
		t.Errorf("files = %+v", s.Files)
	}
	if len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Text, "go vet ./...") || !strings.Contains(s.Errors[0].Text, "limit.go:12:2: unreachable code") {
		t.Errorf("unresolved errors = %+v (the failing go test was fixed in turn 2)", s.Errors)
	}
	if len(s.Decisions) < 1 || !strings.Contains(s.Decisions[0].Text, "token bucket instead of a sliding window") {
		t.Errorf("decisions = %+v", s.Decisions)
	}
	if len(s.Corrections) != 1 || !strings.HasPrefix(s.Corrections[0].Text, "no, use the sliding window") || s.Corrections[0].Turn != 2 {
		t.Errorf("corrections = %+v", s.Corrections)
	}
	if len(s.UserMessages) != 2 {
		t.Errorf("user messages = %+v", s.UserMessages)
	}
}

func TestPreservationBlockGolden(t *testing.T) {
	s, _ := fixtureState(t)
	block := PreservationBlock(PreservationInput{State: s, GitDiffStat: " internal/api/limit.go | 24 ++++--\n 1 file changed", Instructions: DefaultInstructions, Trigger: "auto", Budget: 9000})
	golden(t, "preservation.golden", block)
}

func TestRestoreBlockGolden(t *testing.T) {
	s, chunks := fixtureState(t)
	block := RestoreBlock(RestoreInput{State: s, Last: chunks, Budget: 9500})
	golden(t, "restore.golden", block)
}

// With ctxkeep's MCP tools in the session, both blocks name the tools
// and the input to give them, and never the command line; the restore
// block's wording is otherwise the golden one.
func TestBlocksNameTheTools(t *testing.T) {
	s, chunks := fixtureState(t)
	r := swap.Retrieval{Tools: swap.UserTools}
	restore := RestoreBlock(RestoreInput{State: s, Last: chunks, Budget: 9500, Retrieval: r})
	preserve := PreservationBlock(PreservationInput{State: s, Instructions: DefaultInstructions, Trigger: "auto", Budget: 9000, Retrieval: r})
	for _, want := range []string{
		"`mcp__ctxkeep__recall {\"key\":\"KEY\"}` prints a step exactly (KEY is the [k…] mark), `mcp__ctxkeep__show {\"id\":\"ID\"}` a stored output, " +
			"`mcp__ctxkeep__search {\"query\":\"words\"}` finds anything said or run before.\n",
		"More: `mcp__ctxkeep__search {\"query\":\"words\"}` finds any earlier step of this project's sessions, `mcp__ctxkeep__recall {\"key\":\"KEY\"}` prints it exactly",
	} {
		if !strings.Contains(restore, want) {
			t.Errorf("restore block lacks %q:\n%s", want, restore)
		}
	}
	if !strings.Contains(preserve, "retrievable with `mcp__ctxkeep__recall {\"key\":\"KEY\"}` and `mcp__ctxkeep__search`)") {
		t.Errorf("preservation notes:\n%s", preserve)
	}
	for _, block := range []string{restore, preserve} {
		if strings.Contains(strings.ReplaceAll(block, "`ctxkeep list`", ""), "`ctxkeep ") {
			t.Errorf("names the command line:\n%s", block)
		}
	}
}

// However much a session holds, both blocks fit their budgets and keep the
// most important sections.
func TestBlocksFitTheirBudgets(t *testing.T) {
	var s archive.State
	s.Turns = 900
	for i := range 400 {
		it := archive.Item{Text: strings.Repeat("a long sentence about the work ", 20), Turn: i, Key: "k0123456789a"}
		s.UserMessages = append(s.UserMessages, it)
		s.Decisions = append(s.Decisions, it)
		s.Corrections = append(s.Corrections, it)
		s.Errors = append(s.Errors, it)
		s.Files = append(s.Files, archive.File{Path: "/p/file" + strings.Repeat("x", i%50), Edits: 1, Turn: i, Key: "k0123456789a"})
		s.Commands = append(s.Commands, archive.Run{Command: "go test ./...", Exit: 1, Turn: i, Key: "k0123456789a", Check: true})
	}
	for _, budget := range []int{2000, 3000, 9000} {
		p := PreservationBlock(PreservationInput{State: s, Instructions: strings.Repeat("mine ", 1000), Budget: budget})
		r := RestoreBlock(RestoreInput{State: s, Budget: budget})
		if len(p) > budget || len(r) > budget {
			t.Errorf("budget %d: preservation %d, restore %d bytes", budget, len(p), len(r))
		}
		if !strings.Contains(r, "## Errors and corrections") || !strings.Contains(p, "## Unresolved errors") {
			t.Errorf("budget %d: the errors section was dropped", budget)
		}
	}
}

// After a compaction whose summary kept some details, the restore block
// gives its room first to the exact details the summary lacks — the
// failure with its cause, the correction, the paths it does not name —
// and counts what it left out because the summary has it.
func TestRestoreBlockAfterASummaryGolden(t *testing.T) {
	s, chunks := fixtureState(t)
	summary := "Summary:\n1. Primary Request: add a rate limiter in internal/api.\n" +
		"3. Files: internal/api/limit.go was edited.\n4. Errors: go vet reported unreachable code.\n" +
		"7. Pending Tasks: Document the limits.\n"
	block := RestoreBlock(RestoreInput{State: s, Last: chunks, Budget: 9500, Summary: summary, Project: "/p", Session: "fixture"})
	for _, want := range []string{
		"## Failures and their causes (not in the summary)\n- `go vet ./...` failed (exit 1): internal/api/limit.go:12:2: unreachable code",
		"- no, use the sliding window: we bill on exact counts.",
		"(paths under /p/)\n- internal/api/limit_test.go: edited [",
		"(1 more the summary already has)",
		"`ctxkeep search \"words\" --session fixture`",
	} {
		if !strings.Contains(block, want) {
			t.Errorf("the block lacks %q", want)
		}
	}
	if strings.Contains(block, "[pending] #2 Document the limits") {
		t.Error("the block repeats a task the summary has")
	}
	golden(t, "restore-after-summary.golden", block)
}
