package swap

import (
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/config"
)

// The rules that look at a Bash command read it with the shell parser
// (internal/shell): redirections are not words, quotes are not
// separators, a substitution's commands count, a line that does not
// parse takes the safe side.
func TestRulesReadCommands(t *testing.T) {
	cfg := config.Default()
	big := strings.Repeat("x", 9000)
	for _, tc := range []struct{ command, want string }{
		{"git branch -a 2>&1", "trivial command"},
		{"cd sub && git branch -a >/dev/null 2>&1; pwd", "trivial command"},
		{"FOO=1 echo 'a && npm test | b'", "trivial command"},
		{"echo $(npm test)", ""},
		{"echo `go test ./...`", ""},
		{"cd sub && npm test 2>&1", ""},
		{"echo 'unclosed", ""},
		{"timeout 5 pwd", "trivial command"},
	} {
		if got := Decide(Call{Tool: "Bash", Command: tc.command}, big, cfg); got != tc.want {
			t.Errorf("Decide(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
	for _, tc := range []struct {
		command string
		want    bool
	}{
		{"cd app && go test ./... 2>&1 | tail -20", true},
		{"timeout 600 go test ./...", true},
		{"env CGO_ENABLED=0 go build ./...", true},
		{"echo go test", false},
		{"echo 'go test' && git status", false},
		{"git commit -m 'make test pass'", false},
		{"go test ./... 'unclosed", false},
	} {
		if got := RunsAny(tc.command, cfg.Wrapper.Commands); got != tc.want {
			t.Errorf("RunsAny(%q) = %v", tc.command, got)
		}
	}
	for _, tc := range []struct{ command, want string }{
		{"timeout 300 go test ./... 2>&1", "go test"},
		{"FOO=1 mix test 2>&1 | tail -20", "mix test"},
		{"git log 2>&1 | head -50", "git log"},
		{"find lib -name '*.ex' -exec grep -l LiveView {} \\; 2>/dev/null", "listing"},
		{"echo \"$(go test ./...)\"", ""},
		{"ls $(go env GOROOT)", "listing"},
		{"git log | awk '{print $1}'", ""},
		{"npx vitest run 'unclosed", ""},
	} {
		got := ""
		if cd := CondenserFor(tc.command); cd != nil {
			got = cd.Name
		}
		if got != tc.want {
			t.Errorf("CondenserFor(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

// Why the wrapper refuses: decided on the syntax tree.
func TestRefusalReasons(t *testing.T) {
	for cmd, want := range map[string]string{
		"go test ./... &":              "leaves a job in the background",
		"echo 'a":                      "does not parse",
		"go test || exit 1":            "may end the shell: exit",
		"eval \"$X\"":                  "evals text known only when it runs",
		"$RUNNER test":                 "runs a program known only when it runs",
		"set -e; go test":              "sets a shell option the wrapper would feel",
		"trap 'echo x' ERR; go test":   "sets a trap",
		"exit() { :; }; go test":       "declares a function named exit",
		"-go":                          "starts with '-'",
		"go test | exit 3":             "may end the shell: exit",
		"(exit 3) && go test":          "",
		"go test; echo \"exit $?\"":    "",
		"(set -e; go test) || true":    "",
		"echo $(exec true); go test":   "",
		"set -o pipefail; go test | x": "",
	} {
		got := refusal(cmd)
		if want == "" && got != "" || want != "" && !strings.HasPrefix(got, want) {
			t.Errorf("refusal(%q) = %q, want %q", cmd, got, want)
		}
	}
}
