package swap

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// wrapCorpus is the corpus of commands: real ones from public sessions
// and hostile ones (internal/shell/testdata; TestCorpusFile there says
// where the real ones come from), and those of the nasty table.
func wrapCorpus(t *testing.T) []string {
	out := append(readCorpus(t, "commands.jsonl"), readCorpus(t, "hostile.jsonl")...)
	for _, n := range nasty {
		out = append(out, n.cmd)
	}
	return out
}

// readCorpus reads one of internal/shell/testdata's files of commands, a
// JSON string a line.
func readCorpus(t testing.TB, name string) []string {
	file, err := os.Open(filepath.Join("..", "shell", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []string
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c string
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWrapCorpus checks the wrapper on the corpus: every command it takes
// is still valid shell once wrapped (bash -n) and unwraps to itself; and
// every one that is safe to run here (runnable: every program but a few
// harmless builtins replaced by a stub, files written only in a temporary
// folder) behaves wrapped exactly as alone — output, exit status, working
// directory after — as the client would see it.
func TestWrapCorpus(t *testing.T) {
	bash := bashPath(t)
	var wrapped, ran, refused int
	var runnable []string
	for _, cmd := range wrapCorpus(t) {
		if IsWrapped(cmd) {
			continue
		}
		if !Wrappable(cmd) {
			refused++
			continue
		}
		wrapped++
		w := Wrap(cmd, "/opt/my tools/ctxkeep", "/s/it's here/toolu_01")
		if Unwrap(w) != cmd {
			t.Errorf("Unwrap(Wrap(%q)) = %q", cmd, Unwrap(w))
		}
		check := exec.Command(bash, "-n")
		check.Stdin = strings.NewReader(w)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("bash -n on the wrapped %q: %v\n%s\n%s", cmd, err, out, w)
		}
		if _, ok := runnableCommand(cmd); ok {
			runnable = append(runnable, cmd)
		}
	}
	sb := newSandbox(t, bash, runnable)
	for _, cmd := range runnable {
		ran++
		sb.compare(t, cmd)
	}
	t.Logf("%d commands wrapped and checked with bash -n, %d of them run alone and wrapped; %d refused", wrapped, ran, refused)
	if ran < 100 {
		t.Errorf("only %d commands were safe to run: the check proves little", ran)
	}
}

// sandbox runs commands where they can do no harm: PATH holds only stubs
// (a script per program the commands name, which prints its name and
// words and exits with a status of its own), HOME and the working folder
// are temporary.
type sandbox struct {
	bash, stubs, capture string
}

func newSandbox(t *testing.T, bash string, cmds []string) *sandbox {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat here")
	}
	rm, _ := exec.LookPath("rm")
	sb := &sandbox{bash: bash, stubs: t.TempDir()}
	names := map[string]bool{}
	for _, cmd := range cmds {
		progs, _ := runnableCommand(cmd)
		for _, p := range progs {
			names[p] = true
		}
	}
	for name := range names {
		// A stub drains a pipe it reads (the stage before it never gets
		// SIGPIPE: no status that depends on timing) and writes to
		// stdout only (stages of a pipeline never interleave).
		script := fmt.Sprintf("#!/bin/sh\n[ -p /dev/stdin ] && %s >/dev/null\nprintf '%%s' %s\nfor a; do printf ' %%s' \"$a\"; done\nprintf '\\n'\nexit %d\n",
			cat, shellQuoteTest(name), len(name)%3)
		if err := os.WriteFile(filepath.Join(sb.stubs, name), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The stand-in for `ctxkeep capture SPOOL RC` prints the output of a
	// small command as the real one does, and removes the spool.
	dir := filepath.Join(t.TempDir(), "my tools's")
	os.MkdirAll(dir, 0o700)
	sb.capture = filepath.Join(dir, "ctxkeep")
	script := fmt.Sprintf("#!/bin/sh\n[ \"$1\" = capture ] || exit 99\n%s \"$2.out\"\n%s -f \"$2.out\"\n", cat, rm)
	if err := os.WriteFile(sb.capture, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return sb
}

func shellQuoteTest(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// run runs script with `bash -c` in a fresh folder (with a sub/ in it),
// stdout and stderr merged as the client merges them, and returns the
// output, with the folder's path as DIR, and the exit status.
func (sb *sandbox) run(t *testing.T, script string) (string, int, string) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	// A guard against a command that never ends, not a measure: the
	// commands here take milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sb.bash, "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + sb.stubs, "HOME=" + dir, "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%q did not end", script)
	}
	rc := 0
	if exit, ok := err.(*exec.ExitError); ok {
		rc = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(out), dir, "DIR"), rc, dir
}

func (sb *sandbox) compare(t *testing.T, command string) {
	// The working folder after is printed on exit: a line before the
	// command cannot change how it reads, as one after might (a trailing
	// backslash would join them).
	const cwd = "trap pwd EXIT\n"
	want, wantRC, _ := sb.run(t, cwd+command)
	spool := filepath.Join(t.TempDir(), "spool dir", "toolu_1")
	os.MkdirAll(filepath.Dir(spool), 0o700)
	got, gotRC, _ := sb.run(t, cwd+Wrap(command, sb.capture, spool))
	// bash's messages name where the text came from (-c or eval) and
	// count lines from there: the rest must be the same.
	got = lineNumber.ReplaceAllString(strings.ReplaceAll(got, "bash: eval: ", "bash: -c: "), "line N")
	want = lineNumber.ReplaceAllString(want, "line N")
	if got != want || gotRC != wantRC {
		t.Errorf("%q: alone %d %q, wrapped %d %q", command, wantRC, want, gotRC, got)
	}
	if _, err := os.Stat(spool + ".out"); !os.IsNotExist(err) {
		t.Errorf("%q: capture did not run (spool left)", command)
	}
}

// runnableCommand reports whether a command is safe to run in the sandbox,
// and the programs to stub for it. Safe: every program is a builtin of
// safeBuiltins, a function the line declares, or a plain name (stubbed);
// no program is named by a path or an expansion; every file it redirects
// to or from is /dev/null or a relative path below the working folder;
// cd goes nowhere but below it (or to a folder that is not there); no
// variable whose value differs between two runs or between `bash -c` and
// eval ($RANDOM, $$, BASH_EXECUTION_STRING…) is read, and nothing lists
// every variable; no loop may run forever.
func runnableCommand(command string) ([]string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, false
	}
	funcs := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			funcs[fd.Name.Value] = true
		}
		return true
	})
	var progs []string
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch x := n.(type) {
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			name := x.Args[0].Lit()
			switch {
			case name == "" || strings.ContainsAny(name, `/\`):
				ok = false
			case name == "cd" || name == "pushd":
				ok = safeCd(x.Args[1:])
			case name == "set" && len(x.Args) == 1:
				ok = false // lists every variable
			case safeBuiltins[name] || funcs[name]:
			case builtins[name]:
				ok = false
			default:
				progs = append(progs, name)
			}
		case *syntax.DeclClause:
			if len(x.Args) == 0 || slices.ContainsFunc(x.Args, func(a *syntax.Assign) bool {
				return a.Naked && a.Name == nil && a.Value != nil && strings.HasPrefix(a.Value.Lit(), "-")
			}) {
				ok = false // a listing, or options we do not read
			}
		case *syntax.Redirect:
			ok = safeRedirect(x)
		case *syntax.ParamExp:
			if x.Param != nil && unstable(x.Param.Value) {
				ok = false
			}
		case *syntax.WhileClause, *syntax.CStyleLoop:
			if w, isWhile := x.(*syntax.WhileClause); !isWhile || !readsLines(w) {
				ok = false
			}
		}
		return ok
	})
	return progs, ok
}

// readsLines: `while read …` ends when its input does.
func readsLines(w *syntax.WhileClause) bool {
	if w.Until || len(w.Cond) != 1 {
		return false
	}
	call, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
	return ok && len(call.Args) > 0 && call.Args[0].Lit() == "read"
}

func safeCd(args []*syntax.Word) bool {
	for _, a := range args {
		p := a.Lit()
		switch {
		case p == "" || strings.Contains(p, ".."):
			return false
		case strings.HasPrefix(p, "/"):
			if _, err := os.Stat(p); err == nil {
				return false // an existing folder: files written after would land there
			}
		case strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/"):
			return false
		case p == "-" || strings.HasPrefix(p, "-"):
			return false
		}
	}
	return true
}

func safeRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	}
	if r.Word == nil {
		return false
	}
	p := r.Word.Lit()
	if (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && (p == "-" || strings.Trim(p, "0123456789") == "" && p != "") {
		return true // 2>&1, >&-
	}
	switch {
	case p == "/dev/null", p == "/dev/stdout", p == "/dev/stderr":
		return true
	case p == "", strings.HasPrefix(p, "/"), strings.HasPrefix(p, "~"), strings.Contains(p, ".."):
		return false
	}
	return true
}

// unstable variables differ between two runs, or between `bash -c` and
// eval.
func unstable(name string) bool {
	switch name {
	case "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME", "BASHPID", "PPID", "$", "!", "_",
		"LINENO", "FUNCNAME", "HISTCMD", "PIPESTATUS_":
		return true
	}
	return strings.HasPrefix(name, "BASH_")
}

// safeBuiltins change nothing outside the shell that runs them.
var safeBuiltins = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true, "test": true, "[": true,
	"pwd": true, "popd": true, "dirs": true, "read": true, "mapfile": true, "readarray": true,
	"unset": true, "shift": true, "return": true, "exit": true, "break": true, "continue": true,
	"let": true, "shopt": true, "alias": true, "unalias": true, "type": true, "getopts": true, "wait": true,
	"jobs": true, "trap": true, "set": true, "export": true, "declare": true, "typeset": true, "local": true,
	"readonly": true,
}

// builtins are bash's (compgen -b): a name among them not in safeBuiltins
// is not run (eval, source, exec, kill, command, builtin, enable, hash,
// ulimit, times…).
var builtins = map[string]bool{}

func init() {
	for _, b := range strings.Fields(". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait") {
		builtins[b] = true
	}
}
