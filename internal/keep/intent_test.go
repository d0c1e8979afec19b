package keep

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/shell"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// The kinds of detail a session needs again after its compaction.
const (
	needFile    = "files"     // a file it had read or modified, used again (read, edited, written)
	needCommand = "commands"  // a command it had run, run again (by what it runs: archive.RunGroup)
	needError   = "errors"    // an error line it had seen, seen again
	needResult  = "results"   // the latest result line of a command it runs again (the runner's summary line)
	needTask    = "task text" // a line of a task it had read (issue tracker, task tools), quoted again
)

var needKinds = []string{needFile, needCommand, needError, needResult, needTask}

// need is one detail a session used again after its compaction, with what
// the agent wrote just before using it: the words it would search with.
type need struct {
	kind   string
	detail string
	query  string
	reread bool // a file it had only read before, read again
}

// before is what the session saw before its compaction boundary, read from
// the transcript itself (not from what ctxkeep archived of it).
type before struct {
	files    map[string]bool // read or modified
	readOnly map[string]bool // read and never modified
	groups   map[string]bool // commands, by what they run
	results  map[string]string
	tasks    []string // lines of the tasks it read
	errors   map[string]bool
}

// seenBefore reads the transcript up to the boundary.
func seenBefore(t *testing.T, path string, chunks []ctxkeep.Chunk) before {
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	b := before{files: map[string]bool{}, readOnly: map[string]bool{}, groups: map[string]bool{}, results: map[string]string{}, errors: map[string]bool{}}
	modified := map[string]bool{}
	calls := map[string]transcript.Block{}
	addTask := func(s string) {
		for _, l := range strings.Split(s, "\n") {
			if l = taskLine(l); l != "" && !slices.ContainsFunc(b.tasks, func(x string) bool { return quotes(text.Tokens(x), l) }) {
				b.tasks = append(b.tasks, l) // once: a task's title is in bd show, bd list and bd ready alike
			}
		}
	}
	for _, r := range f.Records {
		if r.Message == nil || !r.MainThread() {
			continue
		}
		for _, bl := range r.Message.Content.Blocks {
			switch bl.Type {
			case transcript.BlockToolUse:
				calls[bl.ID] = bl
				in := claudecode.ParseInput(bl.Input)
				switch bl.Name {
				case "Read":
					b.files[in.FilePath], b.readOnly[in.FilePath] = true, true
				case "Write", "Edit", "MultiEdit":
					b.files[in.FilePath], modified[in.FilePath] = true, true
				case "Bash":
					b.groups[archive.RunGroup(in.Command)] = true
				case "TaskCreate":
					var tc struct{ Subject, Description string }
					json.Unmarshal(bl.Input, &tc)
					addTask(tc.Subject + "\n" + tc.Description)
				}
			case transcript.BlockToolResult:
				call, ok := calls[bl.ToolUseID]
				if !ok {
					continue
				}
				out := bl.Content.Text()
				switch in := claudecode.ParseInput(call.Input); {
				case call.Name == "Bash":
					if s := swap.ReadRun(in.Command, out).Summary.Text; s != "" {
						b.results[archive.RunGroup(in.Command)] = strings.TrimSpace(text.Printable(s))
					} else {
						delete(b.results, archive.RunGroup(in.Command)) // the latest result has no summary line
					}
					if readsTasks(in.Command) {
						addTask(out)
					}
				case call.Name == "TaskGet":
					addTask(out)
				}
			}
		}
	}
	for p := range modified {
		delete(b.readOnly, p)
	}
	for _, c := range chunks {
		for _, e := range c.Meta.Errors {
			b.errors[e] = true
		}
	}
	return b
}

// readsTasks reports whether a command line prints tasks of an issue
// tracker: bd (beads) show, list, ready; gh issue view; jira issue view.
func readsTasks(command string) bool {
	line, err := shell.Read(command)
	if err != nil {
		return false
	}
	for i := range line.Commands {
		run := line.Commands[i].Run()
		switch {
		case len(run) >= 2 && run[0] == "bd" && (run[1] == "show" || run[1] == "list" || run[1] == "ready"),
			len(run) >= 3 && (run[0] == "gh" || run[0] == "jira") && run[1] == "issue" && run[2] == "view":
			return true
		}
	}
	return false
}

// taskLine is a line of a task's text worth counting as quoted when it is
// used again: at least five distinct words besides paths (a line naming a
// file is counted as the file), its list marks and status glyphs trimmed;
// "" for any other line.
func taskLine(l string) string {
	l = strings.TrimLeft(strings.TrimSpace(l), "-*•○◐●✓↳←→↑· 0123456789.[]")
	l = strings.Join(strings.Fields(l), " ")
	if len(contentWords(withoutPaths(l))) < 5 {
		return ""
	}
	return l
}

func withoutPaths(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if !strings.Contains(w, "/") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// contentWords are the distinct words of s of three letters or more that
// are not stop words.
func contentWords(s string) []string {
	var out []string
	for _, w := range text.Tokens(s) {
		if len(w) >= 3 && !text.Stopword(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// quotes reports whether authored (something the agent wrote) quotes
// line: 80 % of the line's words within a stretch of the text not much
// longer than the line.
func quotes(authored []string, line string) bool {
	want := contentWords(line)
	span := 2*len(want) + 4
	for i := range authored {
		have := 0
		for _, w := range want {
			if slices.Contains(authored[i:min(len(authored), i+span)], w) {
				have++
			}
		}
		if float64(have) >= 0.8*float64(len(want)) {
			return true
		}
	}
	return false
}

// needsAfter walks the records after a compaction boundary and returns,
// for the first use of each detail the session had seen before it, the
// agent's words just before that use: the text of the response holding
// the tool call, else the latest text before it.
func needsAfter(t *testing.T, path string, b before) []need {
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	var out []need
	used := map[string]bool{}
	add := func(n need) {
		if k := n.kind + "\x00" + n.detail; !used[k] && n.query != "" {
			used[k] = true
			out = append(out, n)
		}
	}
	quoted := func(authored, query string) {
		words := text.Tokens(authored)
		for _, l := range b.tasks {
			if !used[needTask+"\x00"+l] && quotes(words, l) {
				add(need{kind: needTask, detail: l, query: query})
			}
		}
	}
	last := ""
	for _, r := range f.Records {
		if r.Type != transcript.TypeAssistant || r.Message == nil || !r.MainThread() {
			continue
		}
		for _, bl := range r.Message.Content.Blocks {
			switch bl.Type {
			case transcript.BlockText:
				if s := strings.TrimSpace(bl.Text); s != "" {
					quoted(s, last)
					last = s
				}
			case transcript.BlockToolUse:
				in := claudecode.ParseInput(bl.Input)
				switch bl.Name {
				case "Read", "Write", "Edit", "MultiEdit":
					if b.files[in.FilePath] {
						add(need{kind: needFile, detail: in.FilePath, query: last, reread: bl.Name == "Read" && b.readOnly[in.FilePath]})
					}
				case "Bash":
					g := archive.RunGroup(in.Command)
					if b.groups[g] {
						add(need{kind: needCommand, detail: g, query: last})
					}
					if res := b.results[g]; res != "" {
						add(need{kind: needResult, detail: res, query: last})
					}
				}
				if bl.Name != "Read" && bl.Name != "Grep" && bl.Name != "Glob" {
					quoted(string(bl.Input), last)
				}
			}
		}
	}
	return out
}

// has reports whether txt holds the detail n: a task's line quoted (its
// words, as quotes has them), anything else as holds has it.
func has(txt string, n need, cwd string) bool {
	if n.kind == needTask {
		return quotes(text.Tokens(txt), n.detail)
	}
	return holds(txt, n.detail, cwd)
}

// holds reports whether text holds a detail: a file by its path or its
// path in the project, a command by what it runs, a line by its words
// (whitespace aside; a long one by its first 60 characters: blocks
// shorten them).
func holds(text, detail, cwd string) bool {
	if rel, ok := strings.CutPrefix(detail, cwd+"/"); ok && cwd != "" && strings.Contains(text, rel) {
		return true
	}
	d := strings.Join(strings.Fields(detail), " ")
	if len(d) > 80 {
		d = d[:60]
	}
	if strings.Contains(text, d) {
		return true
	}
	return strings.Contains(strings.Join(strings.Fields(text), " "), d)
}

type intentFigure struct{ needed, found int }

func (f intentFigure) String() string {
	if f.needed == 0 {
		return "–"
	}
	return fmt.Sprintf("%d of %d (%.0f%%)", f.found, f.needed, 100*float64(f.found)/float64(f.needed))
}
