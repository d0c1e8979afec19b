package claudecode

import "testing"

func TestAllowsBash(t *testing.T) {
	p := ReadPermissions(
		[]byte(`{"permissions":{"allow":["Bash(npm test:*)","Bash(go test ./...)","Bash(make *)","Read"],"deny":["Bash(make deploy:*)"]}}`),
		[]byte(`{"permissions":{"ask":["Bash(npm test -- --update:*)"]}}`),
		[]byte(`not json`),
	)
	cases := []struct {
		mode, cmd string
		want      bool
	}{
		{"bypassPermissions", "rm -rf / ; echo", true},
		{"plan", "npm test", false},
		{"default", "npm test", true},
		{"default", "npm test -- --watch", true},
		{"default", "npm testx", false},
		{"default", "go test ./...", true},
		{"default", "go test ./internal/...", false},
		{"default", "make check", true},
		{"default", "make deploy prod", false},       // deny wins
		{"default", "npm test -- --update x", false}, // ask wins
		{"default", "npm test && rm -rf x", false},   // compound: the client checks each part
		{"default", "npm test > /tmp/out", false},    // redirection
		{"default", "npm test $(whoami)", false},     // substitution
		{"acceptEdits", "npm test", true},
		{"default", "cargo test", false},
		{"default", "", false},
	}
	for _, tc := range cases {
		if got := p.AllowsBash(tc.mode, tc.cmd); got != tc.want {
			t.Errorf("AllowsBash(%s, %q) = %v, want %v", tc.mode, tc.cmd, got, tc.want)
		}
	}
	if !(Permissions{Allow: []string{"Bash"}}).AllowsBash("default", "anything at all") {
		t.Error(`"Bash" should allow every simple command`)
	}
}
