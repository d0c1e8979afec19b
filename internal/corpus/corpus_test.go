package corpus

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The corpus itself: big and varied enough, and its labels agree with what
// the runs printed and how they ended.
func TestCorpus(t *testing.T) {
	cases := Load(t)
	if len(cases) < 60 {
		t.Errorf("%d cases, want at least 60", len(cases))
	}
	type tally struct{ cases, passing, failing int }
	runners := map[string]*tally{}
	colour := 0
	for _, c := range cases {
		r := runners[c.Runner]
		if r == nil {
			r = &tally{}
			runners[c.Runner] = r
		}
		r.cases++
		bad := c.Failed > 0 || c.Errors > 0
		if !bad && c.Exit == 0 && !c.Piped() {
			r.passing++
		}
		if bad {
			r.failing++
		}
		if strings.Contains(c.Output, "\x1b") {
			colour++
		}

		if c.Passed+c.Failed+c.Skipped+c.Errors == 0 {
			t.Errorf("%s: the labels count nothing", c.Name)
		}
		if c.Failed < 0 || c.Passed < 0 || c.Skipped < 0 || c.Errors < 0 {
			t.Errorf("%s: a negative count", c.Name)
		}
		// The exit status agrees with the labels, but after a pipe (whose
		// status is the last command's).
		if !c.Piped() && (c.Exit == 0) == bad {
			t.Errorf("%s: exit %d with %d failed and %d errors", c.Name, c.Exit, c.Failed, c.Errors)
		}
		if len(c.FailedTests) > c.Failed+c.Errors {
			t.Errorf("%s: %d failed tests named, more than %d failed and %d errors", c.Name, len(c.FailedTests), c.Failed, c.Errors)
		}
		if c.Failed > 0 && len(c.FailedTests) == 0 {
			t.Errorf("%s: %d failed, none named", c.Name, c.Failed)
		}
		// Each failure is in the output, as the runner printed it; a pipe
		// (tail) may have cut some.
		text := plain(c.Output)
		var missing []string
		for _, name := range c.FailedTests {
			if !shows(text, name) {
				missing = append(missing, name)
			}
		}
		switch {
		case len(missing) > 0 && !c.Piped():
			t.Errorf("%s: failures not in the output: %q", c.Name, missing)
		case len(missing) > 0:
			t.Logf("%s: cut by the pipe: %q", c.Name, missing)
		}
	}
	if len(runners) < 10 {
		t.Errorf("%d runners, want at least 10", len(runners))
	}
	for name, r := range runners {
		if r.passing == 0 || r.failing == 0 {
			t.Errorf("runner %s: %d passing and %d failing cases, want at least one of each", name, r.passing, r.failing)
		}
	}
	if colour < 5 {
		t.Errorf("%d cases in colour (with escape sequences), want at least 5", colour)
	}
	t.Logf("%d cases, %d runners, %d in colour", len(cases), len(runners), colour)
}

// ansi matches the escape sequences the corpus's runners print: CSI
// (colours), and the charset selections of libtest's terminfo ("\x1b(B").
var ansi = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z])`)

// plain is text without escape sequences, its white space runs made one
// space (mocha prints a test's suites and title on separate lines).
func plain(text string) string {
	return strings.Join(strings.Fields(ansi.ReplaceAllString(text, "")), " ")
}

// location is a compiler's "path:line:col" or javac's "path:line".
var location = regexp.MustCompile(`^(.+?):(\d+)(?::(\d+))?$`)

// shows reports whether text shows the failure name: as it is, or for a
// location as tsc ("path(line,col)") or eslint (the path above "line:col")
// print it.
func shows(text, name string) bool {
	name = strings.Join(strings.Fields(name), " ")
	if strings.Contains(text, name) {
		return true
	}
	m := location.FindStringSubmatch(name)
	if m == nil || m[3] == "" {
		return false
	}
	path, line, col := m[1], m[2], m[3]
	return strings.Contains(text, path+"("+line+","+col+")") ||
		strings.Contains(text, path) && strings.Contains(text, " "+line+":"+col+" ")
}

// Without the corpus a test skips on a laptop and fails in CI.
func TestLoadMissing(t *testing.T) {
	if os.Getenv("CORPUS_CHILD") == "1" {
		Load(t)
		return
	}
	for _, c := range []struct{ ci, want string }{{"true", "--- FAIL"}, {"", "--- SKIP"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "CORPUS_CHILD=1", "CI="+c.ci, "CTXKEEP_CORPUS_DIR="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("CI=%q: want %s, got:\n%s", c.ci, c.want, out)
		}
	}
}
