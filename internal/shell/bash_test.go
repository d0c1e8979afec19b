package shell

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestReadsWhatBashReads: a line Read reads, bash reads too (`bash -n`),
// so nothing ctxkeep reasons about is a line bash would refuse; and every
// real command of the corpus is read (a parser stricter than bash on real
// commands would leave them unwrapped and never trivial). Where bash is
// more lenient (a here-document ended by the end of the text), Read
// refuses: the safe side.
func TestReadsWhatBashReads(t *testing.T) {
	bash := bashPath(t)
	real := map[string]bool{}
	for _, c := range readLines(t, "testdata/commands.jsonl") {
		real[c] = true
	}
	for _, line := range append(corpus(t), deep...) {
		_, err := readLine(line)
		if err != nil {
			if real[line] {
				t.Errorf("a real command does not parse: %.200q: %v", line, err)
			}
			continue
		}
		check := exec.Command(bash, "-n")
		check.Stdin = strings.NewReader(line)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("Read reads %.200q, bash -n does not: %v\n%s", line, err, out)
		}
	}
}

// bashPath returns bash, or skips the test where it is missing (and fails
// it under CI=true, where it must be there).
func bashPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bash is needed: %v", err)
		}
		t.Skip("no bash here")
	}
	return p
}
