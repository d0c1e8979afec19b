package archive

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

const shown = `○ spotter-gqc.5 · Add project-level review page   [● P2 · OPEN]
Owner: M · Type: task

DESCRIPTION
Add a review page.

Definition of Done:
- Review page renders open annotations.

===
◐ spotter-gqc.6 · Close project review session   [● P2 · IN_PROGRESS]
Owner: M · Type: task

DESCRIPTION
Close all open annotations.

Definition of Done:
- Clicking ` + "`Close review session`" + ` closes all open annotations.
`

func TestTrackerEvents(t *testing.T) {
	es := trackerEvents(`bd show spotter-gqc.5 2>&1; echo "==="; bd show spotter-gqc.6 2>&1`, shown)
	if len(es) != 2 {
		t.Fatalf("events = %+v", es)
	}
	five, six := es[0], es[1]
	if five.Op != "show" || five.ID != "spotter-gqc.5" || five.Subject != "Add project-level review page" || five.Status != "pending" {
		t.Errorf("first = %+v", five)
	}
	if !strings.Contains(five.Text, "Review page renders open annotations.") || strings.Contains(five.Text, "Close all open") || strings.Contains(five.Text, "===") {
		t.Errorf("first text = %q", five.Text)
	}
	if six.ID != "spotter-gqc.6" || six.Status != "in_progress" || !strings.HasSuffix(six.Text, "closes all open annotations.") {
		t.Errorf("second = %+v", six)
	}
	for _, c := range []struct {
		command string
		want    []ctxkeep.TaskEvent
	}{
		{"bd update spotter-gqc.6 --status in_progress 2>&1", []ctxkeep.TaskEvent{{Op: "update", ID: "spotter-gqc.6", Status: "in_progress"}}},
		{"bd update spotter-gqc.6 --status=in_progress", []ctxkeep.TaskEvent{{Op: "update", ID: "spotter-gqc.6", Status: "in_progress"}}},
		{`bd close spotter-gqc.1 spotter-gqc.2 --reason="done well" 2>&1`, []ctxkeep.TaskEvent{{Op: "update", ID: "spotter-gqc.1", Status: "completed"}, {Op: "update", ID: "spotter-gqc.2", Status: "completed"}}},
		{"bd close spotter-4te.3 --reason Implemented", []ctxkeep.TaskEvent{{Op: "update", ID: "spotter-4te.3", Status: "completed"}}},
		{"gh issue close 42", []ctxkeep.TaskEvent{{Op: "update", ID: "42", Status: "completed"}}},
		{"bd ready", nil},
		{"bd list --status=open | grep gqc", nil},
		{"echo 'bd show x-1'", nil},
		{"bd show 'unclosed", nil},
	} {
		got := trackerEvents(c.command, "")
		if len(got) != len(c.want) {
			t.Errorf("%s: %+v, want %+v", c.command, got, c.want)
			continue
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], c.want[i]) {
				t.Errorf("%s: %+v, want %+v", c.command, got[i], c.want[i])
			}
		}
	}
}

func TestTrackerShowsGitHubIssue(t *testing.T) {
	out := "title:\tFlaky refund test\nstate:\tOPEN\nauthor:\tsomeone\n--\nThe refund test fails one run in ten.\n\n## Acceptance\n- 100 runs pass\n"
	es := trackerEvents("gh issue view 42", out)
	if len(es) != 1 || es[0].ID != "42" || es[0].Subject != "Flaky refund test" || es[0].Status != "pending" || !strings.Contains(es[0].Text, "- 100 runs pass") {
		t.Errorf("events = %+v", es)
	}
}

// The working state knows the tracker's tasks: their titles and texts
// from bd show, started and closed by bd update and bd close.
func TestFoldTrackerTasks(t *testing.T) {
	step := func(n int, tasks ...ctxkeep.TaskEvent) ctxkeep.Chunk {
		return ctxkeep.Chunk{Key: StepKey("s", 1, n), Kind: ctxkeep.KindStep, Turn: 1, Step: n, Meta: ctxkeep.Meta{Tasks: tasks}}
	}
	es := trackerEvents(`bd show spotter-gqc.5; echo "==="; bd show spotter-gqc.6`, shown)
	s := Fold("s", []ctxkeep.Chunk{
		step(1, es...),
		step(2, ctxkeep.TaskEvent{Op: "update", ID: "spotter-gqc.5", Status: "in_progress"}),
		step(3, ctxkeep.TaskEvent{Op: "update", ID: "spotter-gqc.5", Status: "completed"}),
	}, nil)
	if len(s.Tasks) != 2 || s.Tasks[0].Status != "completed" || s.Tasks[1].Status != "in_progress" || s.Tasks[1].Subject != "Close project review session" {
		t.Fatalf("tasks = %+v", s.Tasks)
	}
	if s.Tasks[1].TextKey != StepKey("s", 1, 1) || !strings.Contains(s.Tasks[1].Text, "Definition of Done") {
		t.Errorf("the task in progress has text %q from %s", s.Tasks[1].Text, s.Tasks[1].TextKey)
	}
}

// Runs are grouped by what they run: a failure is resolved by a later
// success of the same run, whatever it is piped into, and the group keeps
// the latest result line.
func TestFoldGroupsRuns(t *testing.T) {
	step := func(n int, cmds ...ctxkeep.Command) ctxkeep.Chunk {
		return ctxkeep.Chunk{Key: StepKey("s", 1, n), Kind: ctxkeep.KindStep, Turn: 1, Step: n, Meta: ctxkeep.Meta{Commands: cmds}}
	}
	s := Fold("s", []ctxkeep.Chunk{
		step(1, ctxkeep.Command{Run: "mix test --seed 0 2>&1 | tail -15", Exit: 2, Errors: []string{"1) test refund"}, Result: "14 doctests, 410 tests, 1 failure"}),
		step(2, ctxkeep.Command{Run: "mix test --seed 0 2>&1 | head -100", Exit: 0, Result: "14 doctests, 410 tests, 0 failures"}),
		step(3, ctxkeep.Command{Run: "cd app && mix test --seed 0", Exit: 0, Result: "14 doctests, 410 tests, 0 failures"}),
		// the group recorded at archive time is the one folded (the shell
		// is not read again at each PreCompact)
		step(4, ctxkeep.Command{Run: "make check", Group: "mix test --seed 0", Exit: 0, Result: "14 doctests, 410 tests, 0 failures"}),
	}, nil)
	if len(s.Commands) != 1 {
		t.Fatalf("runs = %+v", s.Commands)
	}
	r := s.Commands[0]
	if r.Group != "mix test --seed 0" || r.Runs != 4 || r.Variants != 4 || r.Failures != 1 || r.Exit != 0 || r.Result != "14 doctests, 410 tests, 0 failures" || r.Command != "make check" {
		t.Errorf("run = %+v", r)
	}
	if len(s.Errors) != 0 {
		t.Errorf("errors = %+v: the later success resolves the failure", s.Errors)
	}
}

// Files are scored by how often and how lately they were used, and keep
// the line ranges read since they were last read whole.
func TestFoldFilesInUse(t *testing.T) {
	step := func(n int, m ctxkeep.Meta) ctxkeep.Chunk {
		return ctxkeep.Chunk{Key: StepKey("s", 1, n), Kind: ctxkeep.KindStep, Turn: 1, Step: n, Meta: m}
	}
	var chunks []ctxkeep.Chunk
	for i := 1; i <= 5; i++ {
		chunks = append(chunks, step(i, ctxkeep.Meta{FilesRead: []string{"/p/often.go"}}))
	}
	chunks = append(chunks,
		step(6, ctxkeep.Meta{FilesRead: []string{"/p/big.go"}, Ranges: []ctxkeep.LineRange{{Path: "/p/big.go", From: 100, To: 150}}}),
		step(7, ctxkeep.Meta{FilesRead: []string{"/p/big.go"}, Ranges: []ctxkeep.LineRange{{Path: "/p/big.go", From: 140, To: 200}, {Path: "/p/big.go", From: 400}}}),
		step(8, ctxkeep.Meta{FilesModified: []string{"/p/once.go"}}))
	s := Fold("s", chunks, nil)
	score := map[string]float64{}
	for _, f := range append(s.Files, s.Read...) {
		score[f.Path] = f.Score
	}
	if !(score["/p/often.go"] > score["/p/big.go"] && score["/p/big.go"] > score["/p/once.go"]) {
		t.Errorf("scores = %v", score)
	}
	for _, f := range s.Read {
		if f.Path == "/p/big.go" && (f.Reads != 2 || len(f.Ranges) != 2 || f.Ranges[0] != (ctxkeep.LineRange{Path: "/p/big.go", From: 100, To: 200}) || f.Ranges[1].From != 400 || f.Ranges[1].To != 0) {
			t.Errorf("big.go = %+v", f)
		}
	}
}
