package realdata

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Missing data skips a test on a laptop and fails it in CI.
func TestMissingFailsInCI(t *testing.T) {
	if os.Getenv("REALDATA_CHILD") == "1" {
		File(t, "no/such/file.jsonl")
		return
	}
	for _, c := range []struct {
		ci, want string
	}{{"true", "--- FAIL"}, {"", "--- SKIP"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingFailsInCI$", "-test.v")
		cmd.Env = append(os.Environ(), "REALDATA_CHILD=1", "CI="+c.ci)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("CI=%q: want %s, got:\n%s", c.ci, c.want, out)
		}
	}
}
