package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

// TestTestRunsArriveCondensed runs real `go test -v` in the client's Bash:
// a passing run of 80 tests (about 4.5 KB, below the Bash threshold)
// reaches the model condensed by the PostToolUse hook, with its counts and
// its result line; a failing run, captured by the wrapper, reaches it
// condensed with the failure and its cause. At the end of the turn the
// proof of effect finds the hook's replacement in the transcript, and
// `ctxkeep stats` reports it applied.
func TestTestRunsArriveCondensed(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	writeGoModule(t, h.Project)
	// Only the failing run goes through the wrapper (a failed command's
	// output cannot be replaced afterwards); the passing one is the hook's.
	os.WriteFile(filepath.Join(h.Project, ".ctxkeep.toml"), []byte("[wrapper]\ncommands = [\"go test -run TestRefund\"]\n"), 0o644)
	h.Setenv("GOTOOLCHAIN", "local")
	h.Setenv("GOFLAGS", "-count=1")

	h.API.Script(
		fakeapi.Bash("toolu_pass", "go test -run TestCase -v ./..."),
		fakeapi.Bash("toolu_fail", "go test -run TestRefund -v ./..."),
		fakeapi.Say("done"),
	)
	res := h.Run("run the tests", "--tools", "Bash")
	last := h.API.Last(fakeapi.Main)

	pass, _ := last.ToolResult("toolu_pass")
	for _, want := range []string{"[ctxkeep] go test output condensed", "passed tests: 80", "test starts: 80", "exit status 0", "ok  \texample.com/shop"} {
		if !strings.Contains(pass, want) {
			t.Errorf("passing run lacks %q:\n%s", want, pass)
		}
	}
	entries := ck.entries(res.SessionID)
	e, ok := entries["toolu_pass"]
	if !ok {
		t.Fatalf("the passing run was not stored: %+v", entries)
	}
	original := ck.run("show", e.ID)
	if !strings.Contains(original, "--- PASS: TestCase41") || strings.Contains(pass, "--- PASS: TestCase41") || len(original) < 4000 || len(original) > 6144 {
		t.Errorf("original of %d bytes; the model saw %d:\n%s", len(original), len(pass), pass)
	}
	if len(pass) > len(original)*6/10 {
		t.Errorf("condensed to %d of %d bytes", len(pass), len(original))
	}

	fail, _ := last.ToolResult("toolu_fail")
	for _, want := range []string{"Exit code 1", "[ctxkeep] go test output condensed", "exit status 1",
		"refund_test.go:", "Refund(-5) = 5, want an error", "--- FAIL: TestRefund/negative", "FAIL\texample.com/shop"} {
		if !strings.Contains(fail, want) {
			t.Errorf("failing run lacks %q:\n%s", want, fail)
		}
	}
	if strings.Contains(fail, "--- PASS: TestRefund/case_30") {
		t.Errorf("passing subtests not folded:\n%s", fail)
	}
	if log, err := os.ReadFile(filepath.Join(h.Home, ".local/state/ctxkeep/ctxkeep.log")); err == nil {
		t.Errorf("ctxkeep logged problems:\n%s", log)
	}

	s := ck.stats(res.SessionID)
	if s.Swap == nil || s.Swap.Applied != 1 || s.Swap.NotApplied != 0 || s.Swap.Unchecked != 0 {
		t.Errorf("stats: %+v", s.Swap)
	}
	if doctor := ck.run("doctor"); !strings.Contains(doctor, "1 applied, 0 not applied") {
		t.Errorf("doctor:\n%s", doctor)
	}
}

// writeGoModule writes a Go module with 80 passing tests TestCase00…79 and
// a TestRefund of 60 passing subtests and a failing one.
func writeGoModule(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("package shop\n\nimport \"testing\"\n\n")
	for i := range 80 {
		fmt.Fprintf(&b, "func TestCase%02d(t *testing.T) {}\n", i)
	}
	b.WriteString("\nfunc Refund(n int) int {\n\tif n < 0 {\n\t\treturn -n\n\t}\n\treturn n\n}\n\n")
	b.WriteString("func TestRefund(t *testing.T) {\n\tfor i := range 60 {\n\t\tt.Run(fmt.Sprintf(\"case_%02d\", i), func(t *testing.T) {})\n\t}\n")
	b.WriteString("\tt.Run(\"negative\", func(t *testing.T) {\n\t\tif got := Refund(-5); got != -5 {\n\t\t\tt.Errorf(\"Refund(-5) = %d, want an error\", got)\n\t\t}\n\t})\n}\n")
	files := map[string]string{
		"go.mod":         "module example.com/shop\n\ngo 1.22\n",
		"refund_test.go": strings.Replace(b.String(), "import \"testing\"", "import (\n\t\"fmt\"\n\t\"testing\"\n)", 1),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
