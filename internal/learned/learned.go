// Package learned remembers, per project, the commands whose output was
// large, so that the wrapper captures them whole next time (a failing run
// of a command that printed 100 KB once is the output that matters most,
// and the client would cut it to 10 KB). Users review and forget them with
// `ctxkeep learned`.
//
// The list is one small JSON file, read by the PreToolUse hook without
// opening the database, and rewritten under a file lock when it changes.
package learned

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/shell"
)

// Command is one learned command pattern of a project.
type Command struct {
	Pattern  string    `json:"pattern"` // "mix test", "npm run"
	Hits     int       `json:"hits"`
	MaxChars int       `json:"max_chars"`
	Last     time.Time `json:"last"`
}

// File is the learned commands of every project.
type File struct {
	Projects map[string][]Command `json:"projects"`
}

// Load reads the file; a missing file is empty.
func Load(path string) (File, error) {
	f := File{Projects: map[string][]Command{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return File{Projects: map[string][]Command{}}, err
	}
	if f.Projects == nil {
		f.Projects = map[string][]Command{}
	}
	for _, cmds := range f.Projects {
		for i := range cmds {
			cmds[i].Pattern = redact.String(cmds[i].Pattern) // learned before patterns were redacted
		}
	}
	f.dropInvalid()
	return f, nil
}

// dropInvalid forgets the patterns that are not Valid: a file written by
// an earlier version may hold "1" (from `2>&1`) or "tail" (from
// `| tail -20`), which would send `ls -la 2>&1` through the wrapper. The
// next update rewrites the file without them.
func (f *File) dropInvalid() {
	for p, cmds := range f.Projects {
		kept := cmds[:0]
		for _, c := range cmds {
			if Valid(c.Pattern) {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			delete(f.Projects, p)
		} else {
			f.Projects[p] = kept
		}
	}
}

// Match returns the learned pattern of project that command runs, or "":
// the pattern of any command of the line that may have printed its output
// (Pattern), so "cd app && mix test 2>&1 | tail -20" runs "mix test", and
// "ls -la 2>&1" runs no "1".
func (f File) Match(project, command string) string {
	cmds := f.Projects[project]
	if len(cmds) == 0 {
		return "" // nothing learned here: the command need not be read
	}
	for _, p := range printers(command) {
		for _, c := range cmds {
			if c.Pattern == p {
				return p
			}
		}
	}
	return ""
}

// Pattern is what a command line is learned as: the program a user would
// name as the one that printed its output, and its subcommand when it
// reads as one ("npx vitest run 2>&1" → "npx vitest", "make -j4" →
// "make", "mix test 2>&1 | tail -20" → "mix test", "cd app && make build"
// → "make build"). That is the last command of the line that prints
// (printers); "" when there is none, or the line does not parse.
func Pattern(command string) string {
	ps := printers(command)
	if len(ps) == 0 {
		return ""
	}
	return ps[len(ps)-1]
}

// printers are the patterns of the commands of a line that may print its
// output, in order. Not one of them is a redirection or a descriptor
// (shell.Read sets those aside); left out are the commands whose output
// is substituted into a word, a filter reading a pipe (`| tail -20`,
// `| grep -v ok`, `| cat`), the commands that only change the shell or
// print a word (cd, export, echo: Valid), the calls of a function the
// line declares (its body's commands count), and a program named by an
// expansion. Commands that only run another one (sudo, env, nice, time,
// timeout N, xargs…) are skipped for the one they run.
func printers(command string) []string {
	line, err := shell.Read(command)
	if err != nil {
		return nil
	}
	var out []string
	for i := range line.Commands {
		c := &line.Commands[i]
		p := c.Program()
		if c.Substituted || p == len(c.Args) || !c.Literal(p) {
			continue
		}
		prog := c.Args[p]
		if c.Piped && pipeFilter(prog) || slices.Contains(line.Functions, prog) {
			continue
		}
		pattern := prog
		if p+1 < len(c.Args) && c.Literal(p+1) && isSubcommand(c.Args[p+1]) {
			pattern += " " + c.Args[p+1]
		}
		if Valid(pattern) {
			out = append(out, pattern)
		}
	}
	return out
}

func isSubcommand(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}

// Valid reports whether a pattern can be a learned command: a program and
// maybe a subcommand, the program a word a user would name as the one
// that printed — not a descriptor ("1", left by `2>&1` in versions that
// split the line by hand), a piece of shell syntax, a stream filter
// (tail, grep, sort, wc…: what they print is what they were given), a
// command that only changes the shell or prints a word (cd, export, echo),
// or a shell keyword. Load drops the patterns that are not.
func Valid(pattern string) bool {
	prog, sub, two := strings.Cut(pattern, " ")
	if two && !isSubcommand(sub) {
		return false
	}
	switch {
	case prog == "", prog[0] == '-', prog[0] == '#', strings.Trim(prog, "0123456789") == "",
		strings.ContainsAny(prog, " \t\n<>|&;()$`'\"\\*?[]{}=!"):
		return false
	}
	return !notPrinter(prog) && !streamFilter(prog)
}

// notPrinter: a command that only changes the shell, prints a word, or is
// shell syntax. (Switches, not maps: nothing to build when the hook starts.)
func notPrinter(w string) bool {
	switch w {
	case "cd", "pushd", "popd", "export", "set", "unset", "source", ".", "alias", "unalias", "shopt",
		"trap", "ulimit", "umask", "local", "declare", "readonly", "typeset", "exit", "return", "wait", "true", "false",
		":", "echo", "printf", "sleep", "test", "[", "read", "eval", "exec", "builtin", "command", "type", "hash",
		"shift", "let", "pwd", "clear", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "for",
		"while", "until", "in", "function", "select", "time", "coproc":
		return true
	}
	return false
}

// streamFilter: prints what it was given, cut or reordered; never what
// made an output large.
func streamFilter(w string) bool {
	switch w {
	case "tail", "head", "grep", "egrep", "fgrep", "less", "more", "most", "sort", "uniq", "wc", "tee", "cut",
		"tr", "column", "nl":
		return true
	}
	return false
}

// pipeFilter: left out when it reads a pipe — a stream filter, or a tool
// that mostly reshapes a stream there (`| cat`, `| sed 's/x/y/'`).
func pipeFilter(w string) bool {
	switch w {
	case "rg", "cat", "tac", "awk", "gawk", "mawk", "sed", "jq", "yq", "fold", "fmt", "rev", "paste", "bat":
		return true
	}
	return streamFilter(w)
}

// Record learns that command, run in project, printed chars characters,
// as its Pattern; a line without one (`cd sub`, `echo hi`) is not learned.
func Record(path, project, command string, chars int, now time.Time) error {
	return RecordAll(path, []ctxkeep.LargeOutput{{Project: project, Command: command, Chars: chars}}, now)
}

// RecordAll learns every command of outs, with one rewrite of the file.
func RecordAll(path string, outs []ctxkeep.LargeOutput, now time.Time) error {
	type learn struct {
		project, pattern string
		chars            int
	}
	var todo []learn
	for _, o := range outs {
		if p := redact.String(Pattern(o.Command)); p != "" { // a secret passed as the program, by mistake
			todo = append(todo, learn{o.Project, p, o.Chars})
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return update(path, func(f *File) {
		for _, l := range todo {
			f.add(l.project, l.pattern, l.chars, now)
		}
	})
}

func (f *File) add(project, pattern string, chars int, now time.Time) {
	cmds := f.Projects[project]
	for i := range cmds {
		if cmds[i].Pattern == pattern {
			cmds[i].Hits++
			cmds[i].MaxChars = max(cmds[i].MaxChars, chars)
			cmds[i].Last = now.UTC()
			return
		}
	}
	f.Projects[project] = append(cmds, Command{Pattern: pattern, Hits: 1, MaxChars: chars, Last: now.UTC()})
}

// Forget removes the patterns of project (every project when project is
// "") that equal pattern, and returns how many went.
func Forget(path, project, pattern string) (int, error) {
	n := 0
	err := update(path, func(f *File) {
		for proj, cmds := range f.Projects {
			if project != "" && proj != project {
				continue
			}
			kept := cmds[:0]
			for _, c := range cmds {
				if c.Pattern == pattern {
					n++
					continue
				}
				kept = append(kept, c)
			}
			if len(kept) == 0 {
				delete(f.Projects, proj)
			} else {
				f.Projects[proj] = kept
			}
		}
	})
	return n, err
}

// update rewrites the file under its lock.
func update(path string, change func(*File)) error {
	return fsx.Locked(path+".lock", func() error {
		f, err := Load(path)
		if err != nil {
			f = File{Projects: map[string][]Command{}} // a damaged list is rebuilt, not fatal
		}
		change(&f)
		for _, cmds := range f.Projects {
			sort.Slice(cmds, func(i, j int) bool { return cmds[i].Pattern < cmds[j].Pattern })
		}
		data, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return err
		}
		return fsx.WriteFileAtomic(path, append(data, '\n'), fsx.FilePerm)
	})
}
