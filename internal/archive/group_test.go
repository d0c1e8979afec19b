package archive

import "testing"

func TestRunGroup(t *testing.T) {
	for _, c := range []struct{ command, group string }{
		{"mix test --seed 0 2>&1 | tail -15", "mix test --seed 0"},
		{"mix test --seed 0 2>&1 | head -100", "mix test --seed 0"},
		{"cd app && mix test --seed 0 > out.txt", "mix test --seed 0"},
		{"mix test test/a_test.exs 2>&1", "mix test test/a_test.exs"},
		{"mix test 2>&1 | grep -E \"(tests|failures)\"", "mix test"},
		{"timeout 300 go test ./... 2>&1 | tail -5", "go test ./..."},
		{"mix compile 2>&1 && mix test 2>&1 | tail -5", "mix compile && mix test"},
		{"bd show a 2>&1; echo ===; bd show b", "bd show a && bd show b"},
		{"git commit -m \"$(cat <<'EOF'\nfeat: x\nEOF\n)\"", "git commit -m \"$(cat <<'EOF'\nfeat: x\nEOF\n)\""},
		{"tail -30 /tmp/x.output", "tail -30 /tmp/x.output"},
		{"echo 'unclosed", "echo 'unclosed"},
		{"  git   status  ", "git status"},
	} {
		if got := RunGroup(c.command); got != c.group {
			t.Errorf("RunGroup(%q) = %q, want %q", c.command, got, c.group)
		}
	}
}
