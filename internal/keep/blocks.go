package keep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// PreservationInput is what the preservation block is made of.
type PreservationInput struct {
	State        archive.State
	Cold         []ctxkeep.ColdTask
	GitDiffStat  string
	Instructions string // the user's own compaction instructions
	Trigger      string // manual or auto
	Budget       int    // the client cuts PreCompact output at 10,000 characters
	Retrieval    swap.Retrieval
}

// PreservationBlock is what ctxkeep prints on PreCompact: the client adds
// it to the summarisation prompt as "Additional Instructions" (§7.3). It
// tells the summariser what to keep, with the facts to keep, and the user's
// own instructions.
func PreservationBlock(in PreservationInput) string {
	s, r := in.State, in.Retrieval
	turns := fmt.Sprintf("all %d turns", s.Turns)
	if s.Turns == 1 {
		turns = "the 1 turn"
	}
	head := fmt.Sprintf("ctxkeep preservation notes (%s compaction; ctxkeep archived %s of this session, "+
		"so exact details stay retrievable with %s and %s). Keep what follows in the summary.\n", orElse(in.Trigger, "manual"), turns, r.Recall("KEY"), r.Name("search"))
	tail := rulesForSummary + instructionsSection(in.Instructions, in.Budget/4)
	sections := []section{
		{title: "The user's requests, newest first (keep them all, in short)", items: reversed(items(s.UserMessages)), priority: 1, share: 2200, more: r.Name("search")},
		{title: "Tasks, active first", items: tasks(s.Active(), s.Done()), priority: 0, share: 1500},
		{title: "Unresolved errors (quote them exactly)", items: items(s.Errors), priority: 0, share: 1500},
		{title: "Corrections from the user (keep word for word)", items: reversed(items(s.Corrections)), priority: 0, share: 1200},
		{title: "Decisions made", items: reversed(items(s.Decisions)), priority: 2, share: 1500, more: r.Name("search")},
		{title: "Files modified, latest first", items: files(s.Files, "modified"), priority: 2, share: 1200},
		{title: "Test, build and lint runs (last outcome)", items: runs(s.Commands, true), priority: 3, share: 800},
		{title: "git diff --stat", items: lines(in.GitDiffStat), priority: 4, share: 800},
		{title: "Completed tasks, already summarised (use verbatim)", items: cold(in.Cold), priority: 3, share: 1500},
	}
	return render(head, sections, tail, in.Budget)
}

const rulesForSummary = `
## Rules for the summary
1. Keep every active task with its status, and the next step.
2. Keep the files modified and what changed in each.
3. Keep decisions with their reasons, and the user's corrections word for word.
4. Keep unresolved errors exactly: test names, messages, file:line.
5. Use the completed-task summaries above verbatim.
6. Leave out large tool outputs: ctxkeep stored them exactly; name them by their ids instead.
`

// instructionsSection is the user's own instructions, within n bytes.
func instructionsSection(text string, n int) string {
	const title = "\n## The user's own instructions for compaction\n"
	text = strings.TrimSpace(text)
	if text == "" || n <= len(title)+10 {
		return ""
	}
	return title + cutKeepingLines(printable(text), n-len(title)-1) + "\n"
}

// RestoreInput is what the restore block is made of.
type RestoreInput struct {
	State     archive.State
	Last      []ctxkeep.Chunk // the latest steps, oldest first
	Cold      []ctxkeep.ColdTask
	Inventory []ctxkeep.Entry // outputs kept out of the context
	Relevant  []search.Result
	Budget    int
	Retrieval swap.Retrieval
	// Summary is the client's compaction summary, which the model reads
	// just before the block; "" when there is none. The block then gives
	// its room first to the exact details the summary lacks.
	Summary string
	Project string // paths in the summary may be relative to it
	Session string // the session's id, for the line on how to get more
}

// RestoreBlock is what ctxkeep gives the model right after a compaction
// (SessionStart, source "compact"): the working state in sections, the
// stored outputs, and the archived turns most relevant to the latest
// requests — every item with the chunk or entry it comes from.
func RestoreBlock(in RestoreInput) string {
	head, tail := restoreFrame(in)
	if in.Summary != "" {
		return render(head+"The summary above keeps the gist; below, first, the exact details it left out.\n", lackingSections(in), tail, in.Budget)
	}
	return render(head, restoreSections(in), tail, in.Budget)
}

// restoreFrame is the restore block's first and last lines.
func restoreFrame(in RestoreInput) (head, tail string) {
	r := in.Retrieval
	head = fmt.Sprintf("ctxkeep restored this session's working state after compaction. All %d turns are archived: "+
		"%s prints a step exactly (KEY is the [k…] mark), %s a stored output, %s finds anything said or run before.\n",
		in.State.Turns, r.Recall("KEY"), r.Show("ID"), r.Search("words"))
	tail = "\nMore: " + searches(r, in.Session) + ", " + r.Recall("KEY") + " prints it exactly, " + r.Show("ID") + " a stored output.\n"
	return head, tail
}

// restoreSections are the restore block's sections when the client's
// summary is not known.
func restoreSections(in RestoreInput) []section {
	s, r := in.State, in.Retrieval
	// The shares are for the default budget; a smaller one shrinks them
	// alike, and the priorities say what fills first.
	share := func(n int) int {
		if in.Budget <= 0 || in.Budget >= DefaultRestoreBudget {
			return n
		}
		return n * in.Budget / DefaultRestoreBudget
	}
	texts, shown := taskTexts(s, share(activeTextShare), r)
	return []section{
		{title: "Current state and next step", items: current(in.Last, s), priority: 2, share: share(1000)},
		{title: "The task in progress, as read", items: texts, priority: 2, share: share(activeTextShare), raw: true},
		{title: "Tasks, active first" + alsoAbove(shown), items: tasks(without(s.Active(), shown), without(s.Done(), shown)), priority: 3, share: share(1000)},
		{title: "The user's requests, newest first", items: reversed(items(s.UserMessages)), priority: 3, share: share(1200), more: r.Name("search")},
		{title: "Files in use, most used first" + underProject(in.Project), items: filesInUse(s, in.Project), priority: 2, share: share(1600)},
		{title: "Decisions", items: reversed(items(s.Decisions)), priority: 4, share: share(800), more: r.Name("search")},
		{title: "Errors and corrections", items: append(items(s.Errors), reversed(items(s.Corrections))...), priority: 0, share: share(1200)},
		{title: "Commands, by what they run, and their latest result", items: runs(s.Commands, false), priority: 1, share: share(1800)},
		{title: "Worklog (latest steps)", items: worklog(in.Last, in.Project), priority: 5, share: share(600), more: r.Recall("KEY")},
		{title: "Completed tasks", items: cold(in.Cold), priority: 5, share: share(800)},
		{title: "Outputs kept out of the context (" + r.Show("ID") + ")", items: inventory(in.Inventory), priority: 4, share: share(1000), more: "`ctxkeep list`"},
		{title: "Earlier steps relevant to the latest requests", items: relevant(in.Relevant, in.Project), priority: 5, share: share(600), more: r.Name("search")},
	}
}

// DefaultRestoreBudget is the restore block's budget by default
// (restore.budget): the client inlines up to 10,000 characters.
const DefaultRestoreBudget = 9500

// searches says how to search the archive: this session's steps (when
// its id is known), and every session of the project.
func searches(r swap.Retrieval, session string) string {
	if session == "" {
		return r.Search("words") + " finds any earlier step of this project's sessions"
	}
	return r.SearchSession("words", short8(session)) + " finds any earlier step of this session, " +
		r.Search("words") + " of every session of this project"
}

// lackingSections are the restore block's sections after a summary: the
// exact details the summary lacks first (lacking), then what it cannot
// hold (the worklog, stored outputs, related steps).
func lackingSections(in RestoreInput) []section {
	s, k := in.State, newSummaryText(in.Summary, in.Project)
	requests, hadRequests := k.lackingItems(s.UserMessages)
	decisions, hadDecisions := k.lackingItems(s.Decisions)
	texts, _ := taskTexts(s, activeTextShare, in.Retrieval)
	texts, hadTexts := k.lackingLines(texts)
	out := []section{{title: "Current state and next step", items: current(in.Last, s), priority: 0, share: 1000}}
	out = append(out, lacking(s, k, in.Project)...)
	return append(out,
		section{title: "The task in progress, as read (lines not in the summary)", items: texts, priority: 1, share: 2600, raw: true, note: alsoKept(hadTexts)},
		section{title: "The user's requests (not in the summary)", items: reversed(items(requests)), priority: 2, share: 800, note: alsoKept(hadRequests)},
		section{title: "Decisions (not in the summary)", items: reversed(items(decisions)), priority: 3, share: 700, note: alsoKept(hadDecisions)},
		section{title: "Worklog (latest steps)", items: worklog(in.Last, in.Project), priority: 4, share: 600, more: in.Retrieval.Recall("KEY")},
		section{title: "Outputs kept out of the context (" + in.Retrieval.Show("ID") + ")", items: inventory(in.Inventory), priority: 3, share: 800, more: "`ctxkeep list`"},
		section{title: "Earlier steps relevant to the latest requests", items: relevant(in.Relevant, in.Project), priority: 4, share: 600, more: in.Retrieval.Name("search")},
		section{title: "Completed tasks", items: cold(in.Cold), priority: 4, share: 600},
	)
}

// lacking are the sections of the exact details a summary tends to lose
// and k does not hold — failures with their causes, the user's
// corrections, active tasks, what was run with its latest result, the
// files in use with their exact paths — each counting what k already has.
func lacking(s archive.State, k summaryText, project string) []section {
	failures, hadFailures := k.lackingFailures(s)
	corrections, hadCorrections := k.lackingItems(s.Corrections)
	active, hadActive := k.lackingTasks(s.Active())
	commands, hadCommands := k.lackingRuns(s.Commands)
	inUse := s
	var hadModified, hadRead int
	inUse.Files, hadModified = k.lackingFiles(s.Files)
	inUse.Read, hadRead = k.lackingFiles(s.Read)
	return []section{
		{title: "Failures and their causes (not in the summary)", items: failures, priority: 0, share: 1500, note: alsoKept(hadFailures)},
		{title: "The user's corrections, word for word (not in the summary)", items: reversed(items(corrections)), priority: 0, share: 1000, note: alsoKept(hadCorrections)},
		{title: "Active tasks (not in the summary)", items: tasks(active, nil), priority: 0, share: 800, note: alsoKept(hadActive)},
		{title: "Commands, by what they run, and their latest result (not in the summary)", items: runs(commands, false), priority: 1, share: 1600, note: alsoKept(hadCommands)},
		{title: "Exact paths of the files in use, most used first (not in the summary)" + underProject(project), items: filesInUse(inUse, project), priority: 1, share: 1400, note: alsoKept(hadModified + hadRead)},
	}
}

// SupplementInput is what the supplement to a compaction is made of.
type SupplementInput struct {
	State     archive.State
	Summary   string // the client's compaction summary (PostCompact's compact_summary)
	Restored  string // the restore block the model was given (SessionStart)
	Project   string
	Session   string
	Budget    int
	Retrieval swap.Retrieval
}

// Supplement is what the model is told once it is known what the client's
// summary kept (PostCompact, which comes after SessionStart: the summary
// is not in the transcript when the restore block is made): the exact
// details neither the summary nor the restore block holds, or "" when
// there are none.
func Supplement(in SupplementInput) string {
	k := newSummaryText(in.Summary+"\n"+in.Restored, in.Project)
	sections := lacking(in.State, k, in.Project)
	for i := range sections {
		sections[i].title = strings.TrimSpace(strings.Replace(sections[i].title, "(not in the summary)", "", 1))
		sections[i].note = ""
	}
	head := "ctxkeep: the compaction summary and the restore block above left out these exact details of the session:\n"
	r := in.Retrieval
	tail := "\nMore: " + searches(r, in.Session) + ", " + r.Recall("KEY") + " prints it exactly.\n"
	empty := render(head, nil, tail, in.Budget)
	if out := render(head, sections, tail, in.Budget); out != empty {
		return out
	}
	return ""
}

// SummaryOf is the body of a compaction summary as the summariser wrote
// it: what is inside <summary>…</summary>, or all of it.
func SummaryOf(raw string) string {
	if _, rest, ok := strings.Cut(raw, "<summary>"); ok {
		body, _, _ := strings.Cut(rest, "</summary>")
		return strings.TrimSpace(body)
	}
	return strings.TrimSpace(raw)
}

func items(list []archive.Item) []string {
	out := make([]string, len(list))
	for i, it := range list {
		out[i] = fmt.Sprintf("%s [turn %d, %s]", it.Text, it.Turn, it.Key)
	}
	return out
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

// tasks lists the active tasks, then the completed ones, latest first.
func tasks(active, done []archive.Task) []string {
	var out []string
	for i := range done {
		active = append(active, done[len(done)-1-i])
	}
	for _, t := range active {
		id := ""
		switch {
		case isNumber(t.ID):
			id = "#" + t.ID + " " // the client's task tools number their tasks
		case t.ID != "" && t.ID != t.Subject:
			id = t.ID + " " // an issue tracker's id
		}
		out = append(out, fmt.Sprintf("[%s] %s%s [turn %d, %s]", t.Status, id, t.Subject, t.Created, t.Key))
	}
	return out
}

// without is tasks but those of shown (by id and subject).
func without(tasks []archive.Task, shown []archive.Task) []archive.Task {
	return slices.DeleteFunc(slices.Clone(tasks), func(t archive.Task) bool {
		return slices.ContainsFunc(shown, func(s archive.Task) bool { return s.ID == t.ID && s.Subject == t.Subject })
	})
}

// alsoAbove is the note of the task list when tasks are shown above.
func alsoAbove(shown []archive.Task) string {
	if len(shown) == 0 {
		return ""
	}
	return " (besides those above)"
}

// files lists files, most recently touched first. Paths stay whole: the
// model's tools take absolute paths.
func files(fs []archive.File, how string) []string {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b archive.File) int { return b.Seq - a.Seq })
	out := make([]string, len(fs))
	for i, f := range fs {
		n := ""
		if f.Edits > 1 {
			n = fmt.Sprintf(" %d times", f.Edits)
		}
		out[i] = fmt.Sprintf("%s (%s%s, last in turn %d, %s)", f.Path, how, n, f.Turn, f.Key)
	}
	return out
}

// underProject is the note of a list whose paths are given relative to
// the project: "" when there is no project.
func underProject(project string) string {
	if project == "" {
		return ""
	}
	return " (paths under " + project + "/)"
}

// inProject is path relative to project when it is in it, else whole.
func inProject(path, project string) string {
	if rel, ok := strings.CutPrefix(path, project+"/"); ok && project != "" && rel != "" {
		return rel
	}
	return path
}

// filesInUse lists the files the session modified and read, the most in
// use first (archive.File.Score: how often, and how lately), each with
// what was done to it, the lines read when not read whole, and the step
// it was last touched in. Paths are relative to the project (the block
// says which), whole outside it.
func filesInUse(s archive.State, project string) []string {
	fs := append(slices.Clone(s.Files), s.Read...)
	slices.SortStableFunc(fs, func(a, b archive.File) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return b.Seq - a.Seq
	})
	out := make([]string, len(fs))
	for i, f := range fs {
		var did []string
		if f.Edits > 0 {
			did = append(did, "edited"+times(f.Edits))
		}
		if f.Reads > 0 {
			read := "read" + times(f.Reads)
			if len(f.Ranges) > 0 {
				read += " (lines " + ranges(f.Ranges) + ")"
			}
			did = append(did, read)
		}
		out[i] = fmt.Sprintf("%s: %s [%s]", inProject(f.Path, project), strings.Join(did, ", "), f.Key)
	}
	return out
}

func times(n int) string {
	if n > 1 {
		return fmt.Sprintf(" %d×", n)
	}
	return ""
}

// ranges writes line ranges: "135–169, 210–".
func ranges(rs []ctxkeep.LineRange) string {
	var parts []string
	for _, r := range rs {
		if r.To == 0 {
			parts = append(parts, fmt.Sprintf("%d–", r.From))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", r.From, r.To))
		}
	}
	return strings.Join(parts, ", ")
}

// runs lists what the session ran, one line per command however it was
// piped or redirected (archive.RunGroup): test, build and lint runs (and
// any that failed) first, those whose last run failed first, then the
// most in use (how often, and how lately: archive.InUse), each with its
// latest result line; then, several to a line, the other commands, most
// in use first; then the rest of the test, build and lint runs.
// checksOnly keeps only test, build and lint runs (and any that failed).
func runs(rs []archive.Run, checksOnly bool) []string {
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, func(a, b archive.Run) int {
		if (a.Exit > 0) != (b.Exit > 0) {
			if a.Exit > 0 {
				return -1
			}
			return 1
		}
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return b.Seq - a.Seq
	})
	var checks []string
	var others []archive.Run
	for _, r := range rs {
		switch {
		case r.Check || r.Exit > 0 || r.Outcome != "":
			checks = append(checks, runLine(r))
		case !checksOnly:
			others = append(others, r)
		}
	}
	first := checks[:min(len(checks), topChecks)]
	out := append(slices.Clone(first), otherRuns(others)...)
	return append(out, checks[len(first):]...)
}

// topChecks is how many test, build and lint runs are listed before the
// other commands.
const topChecks = 6

// otherRuns lists the commands that are not tests, builds or lints and
// that went well, several to a line: what they run is what the model
// needs again, to run them again ("git status", "bd ready").
func otherRuns(rs []archive.Run) []string {
	var out []string
	var b strings.Builder
	for _, r := range rs {
		w := "`" + text.Squash(orElse(r.Group, r.Command), maxOtherCommand) + "`"
		if r.Runs > 1 {
			w += fmt.Sprintf(" ×%d", r.Runs)
		}
		if b.Len() > 0 && b.Len()+len(w)+2 > maxItem-10 {
			out = append(out, "also ran: "+b.String())
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w)
	}
	if b.Len() > 0 {
		out = append(out, "also ran: "+b.String())
	}
	return out
}

// runLine is one run: what it runs, how often and in how many variants,
// its last exit status and result line, and the step of its last run.
func runLine(r archive.Run) string {
	var b strings.Builder
	limit := maxCommand
	if !r.Check {
		limit = maxOtherCommand
	}
	fmt.Fprintf(&b, "`%s`", text.Squash(orElse(r.Group, r.Command), limit))
	if r.Runs > 1 {
		fmt.Fprintf(&b, " ×%d", r.Runs)
		if r.Variants > 1 {
			fmt.Fprintf(&b, " (%d variants)", r.Variants)
		}
		if r.Failures > 0 {
			fmt.Fprintf(&b, ", %d failed", r.Failures)
		}
	}
	fmt.Fprintf(&b, ": last exit %s", exitText(r.Exit))
	if r.Result != "" && (r.Check || r.Outcome != "") && r.Exit <= 0 { // a failure's cause is with the errors
		b.WriteString(", " + text.Squash(r.Result, maxResult))
	}
	fmt.Fprintf(&b, " [%s]", r.Key)
	return b.String()
}

// maxOtherCommand caps a command that is not a test, build or lint run.
const maxOtherCommand = 70

// maxResult caps a result line in a list.
const maxResult = 120

// maxCommand caps a command in a list: its start says what it is, and
// the chunk holds it whole.
const maxCommand = 100

func exitText(code int) string {
	if code < 0 {
		return "?"
	}
	return fmt.Sprint(code)
}

func cold(cs []ctxkeep.ColdTask) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("#%s %s: %s", c.TaskID, c.Subject, c.Summary))
	}
	return out
}

// current is where the session stands: the last request, the latest of
// the reply, the tasks in progress.
func current(last []ctxkeep.Chunk, s archive.State) []string {
	var out []string
	if n := len(s.UserMessages); n > 0 {
		m := s.UserMessages[n-1]
		out = append(out, fmt.Sprintf("last request (turn %d, %s): %s", m.Turn, m.Key, m.Text))
	}
	for i := len(last) - 1; i >= 0; i-- {
		if reply := lastReply(last[i]); reply != "" {
			out = append(out, fmt.Sprintf("the latest of the reply (%s): %s", last[i].Key, reply))
			break
		}
	}
	for _, t := range s.Active() {
		if t.Status == "in_progress" {
			out = append(out, "in progress: "+t.Subject)
		}
	}
	for _, t := range s.Active() {
		if t.Status != "in_progress" {
			out = append(out, "next: "+t.Subject)
			break
		}
	}
	return out
}

// lastReply is the end of the assistant's text in a chunk's body: the
// last paragraphs that fit in replyLen bytes, where a long turn says
// what it did last and what comes next.
func lastReply(c ctxkeep.Chunk) string {
	i := strings.LastIndex(c.Body, "\nassistant: ")
	if i < 0 {
		if !strings.HasPrefix(c.Body, "assistant: ") {
			return ""
		}
		i = -1
	}
	reply := c.Body[i+len("\nassistant: "):]
	if j := strings.Index(reply, "\n→ "); j >= 0 {
		reply = reply[:j] // the calls it announced: the worklog has them
	}
	reply = strings.TrimSpace(reply)
	return text.Squash(tail(reply, replyLen), replyLen+len("…"))
}

const replyLen = 400

// tail is the end of text within n bytes, from a paragraph start when one
// fits, else from a word, marked "…".
func tail(text string, n int) string {
	if len(text) <= n {
		return text
	}
	from := len(text) - n
	if p := strings.Index(text[from:], "\n\n"); p >= 0 && p < n/2 {
		return text[from+p+2:]
	}
	for from < len(text) && text[from] != ' ' && text[from] != '\n' {
		from++
	}
	return "…" + strings.TrimSpace(text[from:])
}

func worklog(last []ctxkeep.Chunk, project string) []string {
	var out []string
	for i := len(last) - 1; i >= 0; i-- {
		if c := last[i]; c.Conversation() {
			out = append(out, fmt.Sprintf("%s (%s): %s", where(c), c.Key, relative(c.Summary, project)))
		}
	}
	return out
}

// relative is text with the paths in project written relative to it.
func relative(text, project string) string {
	if project == "" {
		return text
	}
	return strings.ReplaceAll(text, project+"/", "")
}

// where says where a chunk is in its session: "turn 3, step 12", or
// "turn 3" for a whole turn.
func where(c ctxkeep.Chunk) string {
	if c.Step > 0 {
		return fmt.Sprintf("turn %d, step %d", c.Turn, c.Step)
	}
	return fmt.Sprintf("turn %d", c.Turn)
}

func inventory(es []ctxkeep.Entry) []string {
	var out []string
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		out = append(out, fmt.Sprintf("%s %s `%s`: %s", e.ID, e.Tool, text.Squash(e.Input, 100), e.Summary))
	}
	return out
}

func relevant(rs []search.Result, project string) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s (session %s, %s): %s", r.Key, short8(r.SessionID), where(r.Chunk), relative(r.Summary, project)))
	}
	return out
}

func short8(s string) string { return s[:min(8, len(s))] }

func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// cutKeepingLines shortens text to n bytes at a rune boundary, keeping its
// line breaks.
func cutKeepingLines(text string, n int) string {
	if len(text) <= n {
		return text
	}
	n -= len("…")
	for n > 0 && text[n]&0xC0 == 0x80 {
		n--
	}
	return text[:max(n, 0)] + "…"
}

func orElse(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// printable is text as a terminal shows it (text.Printable): what is
// restored comes from tool outputs and transcripts, and no escape
// sequence may reach the model.
func printable(s string) string { return text.Printable(s) }
