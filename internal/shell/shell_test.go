package shell

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// describe is a line's commands in one string, for tables: each command's
// Run() words joined by spaces, a non-literal word in {}, its context as
// flags before it (p piped, c child, s substituted, f in a function, o
// opaque, and the words before the program in [] when Program skipped
// some), commands apart with " ; ".
func describe(l *Line) string {
	var parts []string
	for i := range l.Commands {
		c := &l.Commands[i]
		var b strings.Builder
		for _, f := range []struct {
			on   bool
			flag string
		}{{c.Piped, "p"}, {c.Child, "c"}, {c.Substituted, "s"}, {c.InFunction, "f"}, {c.Opaque, "o"}} {
			if f.on {
				b.WriteString(f.flag)
			}
		}
		if b.Len() > 0 {
			b.WriteString(":")
		}
		p := c.Program()
		if p > 0 {
			fmt.Fprintf(&b, "[%s] ", strings.Join(c.Args[:p], " "))
		}
		for j := p; j < len(c.Args); j++ {
			if j > p {
				b.WriteByte(' ')
			}
			if c.Literal(j) {
				b.WriteString(c.Args[j])
			} else {
				b.WriteString("{" + c.Args[j] + "}")
			}
		}
		parts = append(parts, b.String())
	}
	s := strings.Join(parts, " ; ")
	if l.Background {
		s += " &"
	}
	return s
}

func TestRead(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		// what the hand-written split got wrong
		{"npx vitest run 2>&1", "npx vitest run"},
		{"mix test 2>&1 | tail -20", "c:mix test ; p:tail -20"},
		{"go test ./... 2>&1 | grep -v ok", "c:go test ./... ; p:grep -v ok"},
		{"ls -la 2>&1", "ls -la"},
		{"make >build.log 2>&1 </dev/null", "make"},
		{"cmd &>/dev/null; other >&2", "cmd ; other"},
		{"echo 'a && b | c; d'", "echo a && b | c; d"},
		{`echo "x & y" \& z`, "echo x & y & z"},
		// lists, assignments, quoting
		{"cd app && make build", "cd app ; make build"},
		{"false || echo alt; true", "false ; echo alt ; true"},
		{"FOO=1 BAR=$(id -u) make -j4", "cs:id -u ; make -j4"},
		{"X=1", ""},
		{"'go' \"test\" ./...", "go test ./..."},
		{`echo "a\$b" 'c\d' e\ f "g\h" \exit`, `echo a$b c\d e f g\h exit`},
		{"echo $HOME \"$HOME/x\" ${X:-y} ~/z", "echo {$HOME} {\"$HOME/x\"} {${X:-y}} ~/z"},
		{"echo $'a\\tb' $'plain'", "echo {$'a\\tb'} plain"},
		{"echo a \\\n  b", "echo a b"},
		{"# only a comment", ""},
		{"echo hi # && rm -rf /", "echo hi"},
		// groups and compound commands
		{"(cd sub && false)", "c:cd sub ; c:false"},
		{"{ go test; go vet; } | tee log", "c:go test ; c:go vet ; p:tee log"},
		{"a | { b; c | d; }", "c:a ; p:b ; pc:c ; p:d"},
		{"a | b | c", "c:a ; pc:b ; p:c"},
		{"x |& y", "c:x ; p:y"},
		{"if go vet; then go test; elif false; then :; else echo no; fi", "go vet ; go test ; false ; : ; echo no"},
		{"for f in $(ls); do wc -l \"$f\"; done", "cs:ls ; wc -l {\"$f\"}"},
		{"for ((i=0; i<3; i++)); do echo $i; done", "echo {$i}"},
		{"while read l; do echo \"$l\"; done < <(git log)", "cs:git log ; read l ; echo {\"$l\"}"},
		{"case $x in a) make a;; *) make;; esac", "make a ; make"},
		{"f() { go test \"$@\"; }; f ./...", "f:go test {\"$@\"} ; f ./..."},
		{"function g { exit 1; }", "f:exit 1"},
		{"! grep -q x file", "grep -q x file"},
		{"[[ -f go.mod ]] && go build", "go build"},
		{"(( n = $(wc -l < f) ))", "cs:wc -l"},
		{"export A=1 B; local c", "export A=1 B ; local c"},
		{"time go test ./...", "go test ./..."},
		{"diff <(sort a) <(sort b)", "cs:sort a ; cs:sort b ; diff {<(sort a)} {<(sort b)}"},
		{"echo `date` $(echo $(pwd))", "cs:date ; cs:pwd ; cs:echo {$(pwd)} ; echo {`date`} {$(echo $(pwd))}"},
		// here-documents: the body is not commands, unless it substitutes
		{"cat <<EOF\ngo test; rm -rf /\nEOF", "cat"},
		{"cat <<EOF > f\n$(date)\nEOF\necho done", "cs:date ; cat ; echo done"},
		{"cat <<'EOF'\n$(date)\nEOF", "cat"},
		{"python3 - <<'PY'\nimport os\nPY\necho ok", "python3 - ; echo ok"},
		// background
		{"go test ./... &", "go test ./... &"},
		{"sleep 1 & wait", "sleep 1 ; wait &"},
		{"(sleep 1 &)", "c:sleep 1 &"},
		{"coproc cat", "c:cat &"},
		{"a && b &", "a ; b &"},
		// prefix commands
		{"sudo -u bob make install", "[sudo -u bob] make install"},
		{"env -i FOO=1 go test", "[env -i FOO=1] go test"},
		{"timeout -s KILL 300 npm test", "[timeout -s KILL 300] npm test"},
		{"nice -n 5 nohup cargo build", "[nice -n 5 nohup] cargo build"},
		{"find . -name '*.go' | xargs -n 1 grep TODO", "c:find . -name *.go ; p:[xargs -n 1] grep TODO"},
		{"command -v go", "command -v go"},
		{"command exit 1; builtin exit", "[command] exit 1 ; [builtin] exit"},
		{"env", "[env] "},
		// eval reads its text; an eval it cannot read is opaque
		{`eval "go test; exit 3"`, "eval go test; exit 3 ; go test ; exit 3"},
		{"eval -- 'cd x' && make", "eval -- cd x ; cd x ; make"},
		{`eval "$CMD"`, `o:eval {"$CMD"}`},
		{`eval "echo 'unclosed"`, `o:eval echo 'unclosed`},
	} {
		l, err := Read(c.line)
		if err != nil {
			t.Errorf("Read(%q): %v", c.line, err)
			continue
		}
		if got := describe(l); got != c.want {
			t.Errorf("Read(%q) =\n  %s\nwant\n  %s", c.line, got, c.want)
		}
	}
}

func TestReadFunctions(t *testing.T) {
	l, err := Read("f() { :; }; function g { :; }; f")
	if err != nil || strings.Join(l.Functions, ",") != "f,g" {
		t.Fatalf("Functions = %v, %v", l, err)
	}
}

// Lines that do not parse are reported, never guessed at.
func TestReadRefuses(t *testing.T) {
	for _, line := range []string{
		"echo 'abc", `echo "abc`, "{ echo a", "echo a\n}", "echo a;;", ";", "cat <<EOF\nno end",
		"if true; then echo", "echo $(", "echo a |", "&& echo", "(", "echo a\x00b",
		strings.Repeat("x", MaxLine+1), strings.Repeat("(", MaxDepth+1) + "echo" + strings.Repeat(")", MaxDepth+1),
	} {
		if l, err := Read(line); err == nil {
			t.Errorf("Read(%.40q) = %s, want an error", line, describe(l))
		}
	}
	if _, err := Read(strings.Repeat("x", MaxLine+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("a long line: %v", err)
	}
}

// Read remembers the last line: asked twice, it parses once and hands
// back the same Line; another line in between is read afresh.
func TestReadRemembersTheLastLine(t *testing.T) {
	a, _ := Read("go test ./...")
	b, _ := Read("go test ./...")
	if a != b {
		t.Error("the same line read twice gave two Lines")
	}
	Read("make")
	c, _ := Read("go test ./...")
	if describe(c) != "go test ./..." {
		t.Errorf("after another line: %s", describe(c))
	}
}

func TestReadNestedEvalsStop(t *testing.T) {
	line := "go test"
	for range maxEval + 2 {
		line = "eval " + quote(line)
	}
	l, err := Read(line)
	if err != nil {
		t.Fatal(err)
	}
	last := l.Commands[len(l.Commands)-1]
	if !last.Opaque {
		t.Errorf("evals nested past %d still read: %s", maxEval, describe(l))
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// BenchmarkRead is the cost of reading one command line afresh (not the
// last one read), for a short command and a typical agent's pipeline.
//
//	go test -run '^$' -bench Read ./internal/shell
func BenchmarkRead(b *testing.B) {
	for _, line := range []string{
		"echo hello",
		"cd app && mix test test/x_test.exs 2>&1 | tail -20",
		"git log --oneline master..HEAD 2>/dev/null || echo \"No divergence from master\"",
	} {
		b.Run(strings.Fields(line)[0], func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := readLine(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Read may be called from several goroutines (the hook opens the store on
// another): the remembered line is swapped whole, never shared half-built.
func TestReadConcurrently(t *testing.T) {
	lines := []string{"go test ./...", "cd a && make", "mix test 2>&1 | tail -20"}
	done := make(chan bool)
	for g := range 4 {
		go func() {
			defer func() { done <- true }()
			for i := range 200 {
				line := lines[(g+i)%len(lines)]
				l, err := Read(line)
				if err != nil || len(l.Commands) == 0 || !strings.HasPrefix(line, l.Commands[0].Args[0]) {
					t.Errorf("Read(%q) = %v, %v", line, l, err)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
