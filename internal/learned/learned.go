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
	"sort"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/swap"
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
	return f, nil
}

// Match returns the learned pattern of project that command runs, or "".
func (f File) Match(project, command string) string {
	for _, part := range swap.SimpleCommands(command) {
		p := Pattern(part)
		for _, c := range f.Projects[project] {
			if c.Pattern == p {
				return p
			}
		}
	}
	return ""
}

// Pattern is what a simple command is learned as: the program and, when it
// reads as one, its subcommand ("go test ./..." → "go test", "make -j4" →
// "make"). Wrappers that only prefix a command (sudo, time, env, nice) are
// skipped, and so are the variables set for it (TOKEN=… make): a value
// is never part of a pattern.
func Pattern(simple string) string {
	words := strings.Fields(simple)
	for len(words) > 0 && (words[0] == "sudo" || words[0] == "time" || words[0] == "env" || words[0] == "nice" || words[0] == "command" || assigns(words[0])) {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	if len(words) > 1 && isSubcommand(words[1]) {
		return words[0] + " " + words[1]
	}
	return words[0]
}

// assigns reports whether a word of a command sets a variable (NAME=…).
func assigns(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
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

// Record learns that command, run in project, printed chars characters.
// Commands that only change the shell (cd, export) are never learned.
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
		if p := redact.String(patternOf(o.Command)); p != "" { // a secret passed as the program, by mistake
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

// patternOf is what command is learned as: the pattern of the last simple
// command of a chain (the one that printed), unless it only changes the
// shell.
func patternOf(command string) string {
	var pattern string
	for _, part := range swap.SimpleCommands(command) {
		if p := Pattern(part); p != "" && !isShellOnly(p) {
			pattern = p
		}
	}
	return pattern
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

func isShellOnly(p string) bool {
	switch strings.Fields(p)[0] {
	case "cd", "pushd", "popd", "export", "set", "unset", "source", ".":
		return true
	}
	return false
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
