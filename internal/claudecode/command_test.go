package claudecode

import "testing"

func TestIsCtxkeepCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"ctxkeep hook", true},
		{"  ctxkeep\thook  ", true},
		{"/usr/local/bin/ctxkeep hook", true},
		{"'/Users/me/my tools/ctxkeep' hook", true},
		{`"/Users/me/my tools/ctxkeep" hook`, true},
		{`/Users/me/my\ tools/ctxkeep hook`, true},
		{`'/it'\''s/ctxkeep' hook`, true},
		{`"C:\Program Files\ctxkeep\ctxkeep.exe" hook`, true},
		{`C:/tools/CTXKEEP.EXE hook`, false},
		{`C:/tools/ctxkeep.EXE hook`, true},
		{"~/go/bin/ctxkeep hook --log-level=debug", true},
		{"ctxkeep 'hook'", true},
		{"ctxkeep", false},
		{"ctxkeep status", false},
		{"ctxkeep hooks", false},
		{"hook ctxkeep", false},
		{"/opt/ctxkeep/bin/other hook", false},
		{"ctxkeep-dev hook", false},
		{"env X=1 ctxkeep hook", false},
		{"'ctxkeep hook'", false},
		{"'/unclosed/ctxkeep hook", false},
		{`"/unclosed/ctxkeep hook`, false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsCtxkeepCommand(tt.cmd); got != tt.want {
			t.Errorf("IsCtxkeepCommand(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/local/bin/ctxkeep", "/usr/local/bin/ctxkeep"},
		{"C:/a-b_c/x.exe", "C:/a-b_c/x.exe"},
		{"", "''"},
		{"/my tools/ctxkeep", "'/my tools/ctxkeep'"},
		{"/it's/ctxkeep", `'/it'\''s/ctxkeep'`},
		{"$HOME/ctxkeep", "'$HOME/ctxkeep'"},
		{"~/ctxkeep", "'~/ctxkeep'"},
		{"a=b", "'a=b'"},
		{"/é/ctxkeep", "'/é/ctxkeep'"},
	}
	for _, tt := range tests {
		if got := ShellQuote(tt.in); got != tt.want {
			t.Errorf("ShellQuote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestShellQuoteIsRecognised ties the two halves together: whatever path
// the binary is installed at, the command ctxkeep writes is one it finds
// again.
func TestShellQuoteIsRecognised(t *testing.T) {
	paths := []string{
		"/usr/bin/ctxkeep", "/my tools/ctxkeep", "/it's/ctxkeep", `/we"ird/ctxkeep`,
		"/a\\b/ctxkeep", "/$x/`y`/ctxkeep", "/tab\there/ctxkeep", "/new\nline/ctxkeep",
	}
	for _, p := range paths {
		cmd := ShellQuote(p) + " hook"
		words := shellWords(cmd, 3)
		if len(words) != 2 || words[0] != p || !IsCtxkeepCommand(cmd) {
			t.Errorf("%q: words %q, IsCtxkeepCommand %v", cmd, words, IsCtxkeepCommand(cmd))
		}
	}
}

func FuzzShellQuote(f *testing.F) {
	f.Add("/my tools/ctxkeep")
	f.Add("it's")
	f.Fuzz(func(t *testing.T, s string) {
		if words := shellWords(ShellQuote(s)+" x", 3); len(words) != 2 || words[0] != s {
			t.Errorf("shellWords(ShellQuote(%q)) = %q", s, words)
		}
	})
}

func TestCommandProgram(t *testing.T) {
	for cmd, want := range map[string]string{
		"/usr/local/bin/ctxkeep hook":           "/usr/local/bin/ctxkeep",
		"'/opt/my tools/ctxkeep' hook":          "/opt/my tools/ctxkeep",
		ShellQuote("/a/it's/ctxkeep") + " hook": "/a/it's/ctxkeep",
		"":                                      "",
	} {
		if got := CommandProgram(cmd); got != want {
			t.Errorf("CommandProgram(%q) = %q, want %q", cmd, got, want)
		}
	}
}
