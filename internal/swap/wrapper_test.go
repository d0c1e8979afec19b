package swap

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// bashPath returns bash, or skips the test where it is missing (and fails
// it under CI=true, where it must be there).
func bashPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bash is needed to check the wrapper: %v", err)
		}
		t.Skip("no bash here")
	}
	return p
}

// runBash runs script with `bash -c` in dir, stdout and stderr merged (as
// the client merges them), and returns the output and the exit status.
func runBash(t *testing.T, bash, dir, script string) (string, int) {
	t.Helper()
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), 0
}

// fakeCapture is a stand-in for `ctxkeep capture SPOOL RC` that prints the
// spool's output and removes it, as the real one does with a small
// output. Its path has a space and a quote, for the wrapper's quoting.
func fakeCapture(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "my tools's")
	os.MkdirAll(dir, 0o700)
	exe := filepath.Join(dir, "ctxkeep")
	script := "#!/bin/sh\n[ \"$1\" = capture ] || exit 99\ncat \"$2.out\"\nrm -f \"$2.out\"\n"
	if err := os.WriteFile(exe, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return exe
}

// nasty are commands the client may send that are hard to wrap: each is
// either wrapped and then behaves exactly as it does alone, or left alone.
var nasty = []struct {
	name, cmd string
	wrap      bool
	cwd       string // where the shell is after it, relative to where it started
}{
	{"trailing backslash", `echo go test ./... \`, true, ""},
	{"trailing backslash after lines", "echo one\necho two \\", true, ""},
	{"line continuation", "echo a \\\n  b", true, ""},
	{"heredoc", "cat <<EOF\nhello $((1+2)) ${HOME:+home}\nEOF", true, ""},
	{"quoted heredoc", "cat <<'EOF'\n$HOME `x` '\"\nEOF\necho after", true, ""},
	{"heredoc to end of input (does not parse: left alone)", "cat <<EOF\nno delimiter", false, ""},
	{"heredoc with tabs", "cat <<-EOF\n\tindented\n\tEOF", true, ""},
	{"unbalanced single quote (does not parse)", "echo 'abc", false, ""},
	{"unbalanced double quote (does not parse)", `echo "abc`, false, ""},
	{"unbalanced brace (does not parse)", "{ echo a", false, ""},
	{"lone closing brace (does not parse)", "echo a\n}", false, ""},
	{"brace word", "echo a }", true, ""},
	{"comment at the end", "echo hi # done", true, ""},
	{"comment with a brace and quotes", `echo hi # } ' "`, true, ""},
	{"only a comment", "# nothing to run", true, ""},
	{"newlines", "\n\necho a\n\n\necho b\n\n", true, ""},
	{"trailing semicolon", "echo a;", true, ""},
	{"double semicolon (does not parse)", "echo a;;", false, ""},
	{"lone semicolon (does not parse)", ";", false, ""},
	{"carriage return", "echo a\r", true, ""},
	{"CRLF lines", "echo a\r\necho b\r\n", true, ""},
	{"single quotes inside", `echo 'it'"'"'s' "it's"`, true, ""},
	{"expansions", "echo \"$(echo sub)\" $((2*3)) `echo tick` $'a\\tb'", true, ""},
	{"unicode", "echo héllo ✓", true, ""},
	{"failure with stderr", "echo out; echo err >&2; false", true, ""},
	{"status from a subshell", "(cd sub && false)", true, ""},
	{"pipeline", "printf 'a\\nb\\n' | sort -r", true, ""},
	{"and or", "false || echo alt && echo and", true, ""},
	{"redirections with &", "echo x 2>&1; ls /nonexistent-ctxkeep &>/dev/null; echo x |& cat", true, ""},
	{"function", "f() { echo fn; }; f", true, ""},
	{"variable", "X=1; echo $X", true, ""},
	{"set -u", "set -u; echo ok", true, ""},
	{"set +e", "set +e; false; echo still", true, ""},
	{"set -o pipefail", "set -o pipefail; false | true; echo $?", true, ""},
	{"leading blanks", " \t echo a", true, ""},
	{"cd holds", "cd sub && echo in", true, "sub"},
	{"marker-like text", "echo '{ x\n} > y'", true, ""},
	// Decided on the syntax tree: text is not a command, and a child
	// cannot end the shell that runs the wrapper.
	{"quoted exit", `echo "exit" 'exec' logout`, true, ""},
	{"exit in a here-document", "cat <<EOF\nexit 3\nset -e\nEOF", true, ""},
	{"exit in a comment", "echo a # exit 3", true, ""},
	{"exit in a subshell", "(exit 3)", true, ""},
	{"exit in a substitution", "echo \"[$(exit 3)]\"; echo $?", true, ""},
	{"exit in a pipeline's first stage", "exit 3 | cat; echo ${PIPESTATUS[0]}", true, ""},
	{"set -e in a subshell", "(set -e; false; echo not here); echo after", true, ""},
	{"eval of text", `eval 'echo evaluated; false'`, true, ""},
	{"trap listed", "trap -p", true, ""},
	{"set -- words", "set -- a b; echo $#", true, ""},
	{"case", "case x in x) echo matched;; *) echo no;; esac", true, ""},
	{"for and while", "for i in 1 2; do echo $i; done; n=0; while [ $n -lt 2 ]; do n=$((n+1)); done; echo $n", true, ""},
	{"arithmetic and test", "(( 2 > 1 )) && [[ -d sub ]] && echo yes", true, ""},
	{"process substitution", "cat <(echo from-proc)", true, ""},
	{"nested evals", `eval "eval 'echo deep'"`, true, ""},

	{"background", "go test ./... &", false, ""},
	{"background and wait", "sleep 0 & wait", false, ""},
	{"exit", "echo a; exit 3", false, ""},
	{"exit 0", "go test ./... || exit 0", false, ""},
	{"eval of exit", `eval "exit 3"`, false, ""},
	{"exit through command", "command exit 2", false, ""},
	{"exit through builtin", "true && builtin exit", false, ""},
	{"exit in a function", "f() { go test ./... || exit 1; }; f", false, ""},
	{"a function named exit", "exit() { :; }; false", false, ""},
	{"a program from a variable", "$CMD ./...", false, ""},
	{"eval of a variable", `eval "$CMD"`, false, ""},
	{"background in a subshell", "(sleep 0 &)", false, ""},
	{"coproc", "coproc cat", false, ""},
	{"trap", "trap 'echo trapped' ERR; false", false, ""},
	{"ulimit", "ulimit -f 0; echo a", false, ""},
	{"shopt -o errexit", "shopt -o -s errexit; false", false, ""},
	{"set with a variable", "set $OPTS; echo a", false, ""},
	{"exec", "exec go test ./...", false, ""},
	{"logout", "logout", false, ""},
	{"set -e", "set -e; echo a; false; echo b", false, ""},
	{"set -euo pipefail", "set -euo pipefail; go test ./...", false, ""},
	{"set -o errexit", "set -o errexit; false", false, ""},
	{"set -e after -o pipefail", "set -o pipefail -e; false", false, ""},
	{"set -x", "set -x; echo traced", false, ""},
	{"set -o posix", "set -o posix; echo (", false, ""},
	{"leading dash", "-x", false, ""},
	{"NUL", "echo a\x00b", false, ""},
}

// TestWrappedCommandsBehaveAsAlone runs each nasty command alone and
// wrapped (with a stand-in for capture) and compares what the client
// would get: the output, the exit status and the working directory after.
func TestWrappedCommandsBehaveAsAlone(t *testing.T) {
	bash := bashPath(t)
	exe := fakeCapture(t)
	for _, tc := range nasty {
		if got := Wrappable(tc.cmd); got != tc.wrap {
			t.Errorf("%s: Wrappable(%q) = %v", tc.name, tc.cmd, got)
			continue
		}
		if !tc.wrap {
			continue
		}
		aloneDir, wrappedDir := t.TempDir(), t.TempDir()
		for _, d := range []string{aloneDir, wrappedDir} {
			os.Mkdir(filepath.Join(d, "sub"), 0o700)
		}
		want, wantRC := runBash(t, bash, aloneDir, tc.cmd)
		spool := filepath.Join(t.TempDir(), "spool dir", "toolu_1")
		os.MkdirAll(filepath.Dir(spool), 0o700)
		wrapped := Wrap(tc.cmd, exe, spool)
		got, gotRC := runBash(t, bash, wrappedDir, wrapped+"\n__rc=$?; pwd; exit $__rc")
		got, cwd := cutLastLine(got)
		// bash's messages name where the text came from (-c or eval) and
		// count lines from there: the rest must be the same.
		got = lineNumber.ReplaceAllString(strings.ReplaceAll(got, "bash: eval: ", "bash: -c: "), "line N")
		want = lineNumber.ReplaceAllString(want, "line N")
		want = strings.ReplaceAll(want, aloneDir, "DIR")
		got = strings.ReplaceAll(got, wrappedDir, "DIR")
		if got != want || gotRC != wantRC {
			t.Errorf("%s: alone %d %q, wrapped %d %q\nwrapped command:\n%s", tc.name, wantRC, want, gotRC, got, wrapped)
		}
		if wantCwd := filepath.Join(wrappedDir, tc.cwd); cwd != wantCwd {
			t.Errorf("%s: cwd after = %q, want %q", tc.name, cwd, wantCwd)
		}
		if Unwrap(wrapped) != tc.cmd || !IsWrapped(wrapped) {
			t.Errorf("%s: Unwrap = %q", tc.name, Unwrap(wrapped))
		}
		if _, err := os.Stat(spool + ".out"); !os.IsNotExist(err) {
			t.Errorf("%s: capture did not run (spool left)", tc.name)
		}
	}
}

var lineNumber = regexp.MustCompile(`line \d+`)

func cutLastLine(s string) (rest, last string) {
	s = strings.TrimSuffix(s, "\n")
	i := strings.LastIndexByte(s, '\n')
	return s[:i+1], s[i+1:]
}

// Commands wrapped by earlier versions (a brace group) still unwrap.
func TestUnwrapsTheBraceGroupForm(t *testing.T) {
	old := "{ go test ./...\n} > /s/t.out 2>&1; __ctxkeep_rc=$?; /x/ctxkeep capture /s/t \"$__ctxkeep_rc\"; (exit \"$__ctxkeep_rc\")"
	if got := Unwrap(old); got != "go test ./..." {
		t.Fatalf("Unwrap = %q", got)
	}
	if got := Unwrap("go test ./..."); got != "go test ./..." {
		t.Fatalf("Unwrap of a plain command = %q", got)
	}
}

// FuzzWrap checks that whatever the client sends, a command the wrapper
// takes is still one valid shell command once wrapped (bash -n), and
// unwraps to itself. The seed corpus runs in `go test`.
func FuzzWrap(f *testing.F) {
	for _, tc := range nasty {
		f.Add(tc.cmd)
	}
	for _, c := range readCorpus(f, "hostile.jsonl") {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if IsWrapped(cmd) || !Wrappable(cmd) {
			return
		}
		wrapped := Wrap(cmd, "/opt/my tools/ctxkeep", "/s/it's here/toolu_01")
		if !IsWrapped(wrapped) || Unwrap(wrapped) != cmd {
			t.Fatalf("Unwrap(Wrap(%q)) = %q", cmd, Unwrap(wrapped))
		}
		check := exec.Command(bashPath(t), "-n")
		check.Stdin = strings.NewReader(wrapped)
		if out, err := check.CombinedOutput(); err != nil {
			t.Fatalf("bash -n on the wrapped %q: %v\n%s\n%s", cmd, err, out, wrapped)
		}
	})
}
