package archive

import (
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/shell"
)

// An issue tracker the agent works from on the command line is read as
// the client's own task tools are: the text of a task it shows (bd show
// ID…, gh issue view N, glab issue view N), a task started (bd update ID
// --status in_progress) or closed (bd close ID…, gh issue close N). So
// the working state knows the task in progress and its text — its
// acceptance criteria — which the agent read once and works to after
// compaction. Only the commands that succeeded are read, and only tasks
// named by the command line: a listing (bd ready, bd list) names many
// tasks and says little of each.

// maxTaskText caps the text kept of one task.
const maxTaskText = 4000

// trackerEvents are the task events of a command line that succeeded, and
// its output.
func trackerEvents(command, output string) []ctxkeep.TaskEvent {
	if !strings.Contains(command, "bd ") && !strings.Contains(command, "issue ") {
		return nil // most commands: no parse
	}
	line, err := shell.Read(command)
	if err != nil {
		return nil
	}
	var shown []string
	var out []ctxkeep.TaskEvent
	for i := range line.Commands {
		c := &line.Commands[i]
		if c.Substituted || c.InFunction {
			continue
		}
		run := c.Run()
		verb, ids := trackerVerb(run)
		switch verb {
		case "show":
			shown = append(shown, ids...)
		case "start":
			for _, id := range ids {
				out = append(out, ctxkeep.TaskEvent{Op: "update", ID: id, Status: "in_progress"})
			}
		case "close":
			for _, id := range ids {
				out = append(out, ctxkeep.TaskEvent{Op: "update", ID: id, Status: "completed"})
			}
		}
	}
	for _, s := range splitShown(output, shown) {
		out = append(out, s)
	}
	return out
}

// trackerVerb reads one command of a tracker: "show", "start" or "close",
// and the task ids it names; "" for any other command.
func trackerVerb(run []string) (string, []string) {
	switch {
	case len(run) >= 3 && run[0] == "bd" && run[1] == "show":
		return "show", taskIDs(run[2:], isBeadsID)
	case len(run) >= 3 && run[0] == "bd" && run[1] == "close":
		return "close", taskIDs(run[2:], isBeadsID)
	case len(run) >= 3 && run[0] == "bd" && run[1] == "update":
		if status := optionValue(run[2:], "--status", "-s"); status == "in_progress" {
			return "start", taskIDs(run[2:], isBeadsID)
		} else if status == "closed" {
			return "close", taskIDs(run[2:], isBeadsID)
		}
	case len(run) >= 4 && (run[0] == "gh" || run[0] == "glab") && run[1] == "issue" && run[2] == "view":
		return "show", taskIDs(run[3:], isNumber)
	case len(run) >= 4 && (run[0] == "gh" || run[0] == "glab") && run[1] == "issue" && run[2] == "close":
		return "close", taskIDs(run[3:], isNumber)
	}
	return "", nil
}

// taskIDs are the words of args that name tasks, options and their
// values aside.
func taskIDs(args []string, isID func(string) bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "-"):
			if !strings.Contains(a, "=") && i+1 < len(args) && !isID(args[i+1]) {
				i++ // the option's value
			}
		case isID(a):
			out = append(out, a)
		}
	}
	return out
}

// optionValue is the value of the option named one of names in args
// ("--status in_progress", "--status=in_progress"), or "".
func optionValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
		}
	}
	return ""
}

// isBeadsID reports whether s reads as a beads id: a prefix, a dash, a
// hash, and the numbers of its subtasks ("spotter-gqc", "bd-a1b2.3").
func isBeadsID(s string) bool {
	base, _, _ := strings.Cut(s, ".")
	i := strings.LastIndexByte(base, '-')
	if i <= 0 || i == len(base)-1 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "#")
	if s == "" || len(s) > 12 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// splitShown cuts the output of one or more shown tasks into their texts:
// each from the line that starts with its id (after the status marks
// trackers print before it) to the next's; the whole output for a single
// task whose id starts no line (gh prints a title line first).
func splitShown(output string, ids []string) []ctxkeep.TaskEvent {
	if len(ids) == 0 || strings.TrimSpace(output) == "" {
		return nil
	}
	lines := strings.Split(printable(output), "\n")
	type start struct {
		id   string
		line int
	}
	var starts []start
	from := 0
	for _, id := range ids {
		for i := from; i < len(lines); i++ {
			if rest, ok := strings.CutPrefix(strings.TrimLeft(lines[i], "○◐●✓✗❄ \t#"), id); ok && (rest == "" || strings.ContainsAny(rest[:1], " :·")) {
				starts = append(starts, start{id, i})
				from = i + 1
				break
			}
		}
	}
	if len(starts) == 0 {
		if len(ids) != 1 {
			return nil
		}
		starts = []start{{ids[0], 0}}
	}
	var out []ctxkeep.TaskEvent
	for k, s := range starts {
		end := len(lines)
		if k+1 < len(starts) {
			end = starts[k+1].line
		}
		seg := lines[s.line:end]
		for len(seg) > 0 && (strings.TrimSpace(seg[len(seg)-1]) == "" || strings.Trim(seg[len(seg)-1], "=-_ ") == "") {
			seg = seg[:len(seg)-1] // blank lines and the separators a loop echoed
		}
		subject, status := taskHeader(seg, s.id)
		out = append(out, ctxkeep.TaskEvent{Op: "show", ID: s.id, Subject: short(subject, 200), Status: status, Text: taskText(strings.Join(seg, "\n"))})
	}
	return out
}

// taskHeader reads the title and the state of a shown task: bd's first
// line ("○ spotter-gqc.6 · Close the review   [● P2 · OPEN]"), gh's
// "title:" and "state:" lines.
func taskHeader(lines []string, id string) (subject, status string) {
	for _, l := range lines[:min(len(lines), 12)] {
		if v, ok := strings.CutPrefix(l, "title:"); ok && subject == "" {
			subject = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(l, "state:"); ok && status == "" {
			status = taskStatus(strings.TrimSpace(v))
		}
	}
	if subject != "" || len(lines) == 0 {
		return subject, status
	}
	head := strings.TrimLeft(lines[0], "○◐●✓✗❄ \t#")
	head = strings.TrimLeft(strings.TrimPrefix(head, id), " ·:")
	if i := strings.LastIndex(head, "["); i > 0 {
		for _, w := range strings.FieldsFunc(head[i:], func(r rune) bool { return r == ' ' || r == '·' || r == '[' || r == ']' || r == '●' }) {
			if s := taskStatus(w); s != "" {
				status = s
			}
		}
		head = head[:i]
	}
	head = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(head), "[EPIC]"))
	return strings.TrimLeft(head, " ·"), status
}

// taskStatus maps a tracker's state to the task tools' statuses.
func taskStatus(s string) string {
	switch strings.ToUpper(s) {
	case "OPEN":
		return "pending"
	case "IN_PROGRESS":
		return "in_progress"
	case "CLOSED":
		return "completed"
	}
	return ""
}

// taskText is a task's text as kept: as a terminal shows it, blank lines
// squeezed, trailing spaces trimmed, at most maxTaskText bytes.
func taskText(s string) string {
	var b strings.Builder
	blank := false
	for _, l := range strings.Split(printable(s), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteString("\n")
			blank = false
		}
		b.WriteString(l + "\n")
	}
	return cutText(strings.TrimRight(b.String(), "\n"), maxTaskText)
}

// cutText shortens s to n bytes at a line, or a rune, boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i > n/2 {
		return s[:i] + "\n…"
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
