// Package swap decides which tool outputs leave the model's context and
// builds the compact view the model sees in their place: what was called,
// how big the output is, a summary made for the tool, every failure with
// the lines that give its cause (up to a cap, with the count of the rest),
// the head and the tail, and the exact way to get any part of the original
// back.
//
// Everything here is pure: no files, no clock. The hook stores the
// original first and only then shows the view.
package swap

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// NoExit is Item.Exit when the exit status is not known.
const NoExit = -1

// Item is one large tool output on its way out of the context.
type Item struct {
	ID       string // the entry id, for `ctxkeep show ID`
	Tool     string // Bash, Read, Grep, Glob, WebFetch, an MCP tool…
	Input    string // what was called: the command, the path, the pattern
	Text     string // the whole original output
	Exit     int    // exit status, or NoExit
	CopyPath string // a plain-text copy the agent's Read can page through; "" if none
	FilePath string // for Read: the file that was read
}

// Budget bounds a view (config.View) and says what it may show.
type Budget struct {
	Chars    int // the whole view
	Summary  int // the tool-specific summary
	KeyLines int // failure lines (markers and causes) shown before counting the rest
	// KeepSecrets shows secrets as they are (privacy.redact = false). By
	// default a view shows [redacted:KIND] in their place, in the output
	// and in the call: the model needs neither.
	KeepSecrets bool
	// Retrieval is how the view says to get the original back.
	Retrieval Retrieval
}

// maxLine is how much of one output line a view shows.
const maxLine = 160

// Stats describe an output, for the entry that indexes it.
type Stats struct {
	Chars     int    // characters of the original
	Lines     int    // lines of the original
	Failures  int    // lines of failures: their markers and causes
	Shown     int    // of those, listed in the view
	Binary    bool   // the output is binary data
	Brief     string // one line, for inventories
	ViewChars int    // characters of the view
	Kind      string // what the model sees: KindView, KindCondensed, KindPointer
	Folded    int    // lines folded, when condensed
	Outcome   string // the runner's account, "pytest: 2 failed, 60 passed"; "" for an output no known runner printed
}

// View renders the view of it within b.Chars bytes (so within as many
// characters), and measures the original on the way. Sections are filled
// in order of importance: what it is and how to get it back, then
// failures, the tool's summary, the tail, the head.
func View(it Item, b Budget) (string, Stats) {
	st := Stats{Chars: utf8.RuneCountInString(it.Text), Binary: IsBinary(it.Text)}
	length := len(it.Text)
	if !b.KeepSecrets { // the figures are the original's; redaction keeps the line count
		it.Input = redact.String(it.Input)
		if !st.Binary {
			it.Text = redact.String(it.Text)
		}
	}
	it.Input = text.Printable(it.Input)
	if !st.Binary { // as a terminal shows it, line for line: no escape reaches the model
		it.Text = text.Printable(it.Text)
	}
	lines := splitLines(it.Text)
	st.Lines = len(lines)
	head := header(it, st, length)
	foot := footer(it, b.Retrieval)
	room := b.Chars - len(head) - len(foot)
	var body []string
	if st.Binary {
		body = []string{fmt.Sprintf("Binary data (%s); not shown.\n", binaryKind(it.Text))}
	} else {
		run := Run{Passed: -1}
		if HasFailures(it.Tool) {
			run = readRun(it.Input, it.Text, lines)
		}
		body, st.Failures, st.Shown = bodySections(it, lines, run, b, &room)
		st.Outcome = run.Outcome(it.Exit)
	}
	st.Brief = brief(it, lines, st)
	view := head + strings.Join(body, "") + foot
	st.ViewChars = utf8.RuneCountInString(view)
	return view, st
}

// bodySections picks what fits: failures first, never dropped for the rest.
func bodySections(it Item, lines []string, run Run, b Budget, room *int) (out []string, failures, listed int) {
	add := func(s string) {
		if s != "" && len(s) <= *room {
			out = append(out, s)
			*room -= len(s)
		}
	}
	section, shown, failures := failureSection(it, lines, run, b.KeyLines, b.Retrieval, room)
	listed = len(shown) // before the head and tail add their lines to shown
	out = append(out, section)
	add(summarySection(it, lines, summaryRoom(it.Tool, b, *room)))
	tail, head := edgeSections(lines, shown, *room)
	add(head)
	add(tail)
	return out, failures, listed
}

// header says what the output is and how big (length: in bytes).
func header(it Item, st Stats, length int) string {
	size := fmt.Sprintf("%s chars, %s lines, ~%s tokens", commas(st.Chars), commas(st.Lines), tokens(length))
	exit := ""
	if it.Exit != NoExit {
		exit = fmt.Sprintf("; exit status %d", it.Exit)
	}
	what := cut(it.Tool, 100) + " output"
	if it.Tool == "Read" {
		what = "Read of " + cut(it.FilePath, 300)
	}
	h := fmt.Sprintf("[ctxkeep] %s swapped out of the context, kept exactly as id %s: %s%s.\n", what, it.ID, size, exit)
	if it.Input != "" && it.Tool != "Read" {
		h += "call: " + cut(text.FirstLine(it.Input), 300) + "\n"
	}
	if it.Tool == "Read" {
		h += "(The numbers the client shows at the left count this view's lines. Lines of the file are marked L<n>.)\n"
	}
	return h
}

func footer(it Item, r Retrieval) string {
	show := r.Verb() + " " + r.Show(it.ID, "lines", "A:B") + " " + r.Narrowings()
	switch {
	case it.Tool == "Read":
		return fmt.Sprintf("To see lines: Read %s again with offset and limit (L<n> above are its line numbers), or %s.\n", cut(it.FilePath, 300), show)
	case it.CopyPath != "":
		return fmt.Sprintf("Get any part back exactly: Read %s with offset/limit (its lines are the L<n> above), or %s.\n", cut(it.CopyPath, 300), show)
	}
	return fmt.Sprintf("Get any part back exactly: %s.\n", show)
}

// failureSection gives the runner's account of the run (runs.go), then
// lists the failure lines with their causes, as many as the cap and the
// room allow (lines are shortened rather than left out; each failure's
// first cause before the marker of one more), and always says how many
// there are in all. A run its runner reports as passing has no failure
// lines: what looks like one in it is noise.
func failureSection(it Item, lines []string, run Run, cap int, r Retrieval, room *int) (string, map[int]bool, int) {
	shown := map[int]bool{}
	if !HasFailures(it.Tool) {
		return "", shown, 0
	}
	var b strings.Builder
	if run.Known() {
		b.WriteString(run.Headline(it.Exit) + ".\n")
		if run.Passing(it.Exit) {
			*room -= b.Len()
			return b.String(), shown, 0
		}
		b.WriteString(failingList(run, cap, (*room-b.Len())/3))
	}
	fs, count := findFailures(it.Text, lines, max(cap, 0))
	if count.Lines == 0 {
		*room -= b.Len()
		return b.String(), shown, 0
	}
	b.WriteString(text.Plural(count.Lines, "failure line"))
	if count.Lines > count.Failures {
		b.WriteString(", with their causes")
	}
	b.WriteString(":\n")
	*room -= b.Len()
	// room kept for "  … N more lines: `ctxkeep show ID --failures`",
	// more when the tool's name and input are longer than the command
	restLine := 110 + len(r.Show(it.ID, "failures")) - len(Retrieval{}.Show(it.ID, "failures"))
	order := byPriority(fs)
	order = order[:min(max(cap, 0), len(order))]
	width := maxLine
	if len(order) > 0 {
		width = max(40, min(maxLine, (*room-restLine)/len(order)-12))
	}
	var picked []Line
	for _, l := range order {
		s := numberedCut(l, width)
		if len(s) > *room-restLine {
			break
		}
		*room -= len(s)
		picked = append(picked, l)
		shown[l.N] = true
	}
	slices.SortFunc(picked, func(a, b Line) int { return a.N - b.N })
	for _, l := range picked {
		b.WriteString(numberedCut(l, width))
	}
	if rest := count.Lines - len(picked); rest > 0 {
		s := fmt.Sprintf("  … %s: %s\n", text.Plural(rest, "more failure line"), r.Show(it.ID, "failures"))
		b.WriteString(s)
		*room -= len(s)
	}
	return b.String(), shown, count.Lines
}

// failingList names what failed, as the runner names it, up to most names
// and room bytes, and counts the others: "Failing tests (2): TestA (L12),
// TestB/x (L40).".
func failingList(run Run, most, room int) string {
	if len(run.Failing) == 0 {
		return ""
	}
	what := "Failing tests"
	if run.Unit == "error" {
		what = "Errors"
	}
	n := max(run.Failed, len(run.Failing))
	head := fmt.Sprintf("%s (%d): ", what, n)
	var b strings.Builder
	listed := 0
	for _, f := range run.Failing[:min(len(run.Failing), max(most, 1))] {
		name := fmt.Sprintf("%s (L%d)", cut(f.Name, 100), f.Line.N)
		if listed > 0 {
			name = ", " + name
		}
		if len(head)+b.Len()+len(name)+len(", and 99999 more.\n") > room {
			break
		}
		b.WriteString(name)
		listed++
	}
	if listed == 0 {
		return ""
	}
	if rest := n - listed; rest > 0 {
		fmt.Fprintf(&b, ", and %d more", rest)
	}
	return head + b.String() + ".\n"
}

// markersIn counts the failures of fs whose marker is shown.
func markersIn(fs []Failure, shown map[int]bool) int {
	n := 0
	for _, f := range fs {
		if shown[f.Marker.N] {
			n++
		}
	}
	return n
}

// summaryRoom is view.summary_length, except for a source file, whose
// outline is worth more than its first and last lines: it gets all the
// room but a few lines' worth.
func summaryRoom(tool string, b Budget, room int) int {
	if tool == "Read" {
		return room - 3*maxLine/2
	}
	return min(b.Summary, room)
}

// edgeSections shows the last lines (where results and summaries are) and
// the first ones, skipping lines already shown as failures.
func edgeSections(lines []string, shown map[int]bool, room int) (tail, head string) {
	tailRoom, headRoom := room*2/3, room/3
	tail = edge("last lines:\n", lines, shown, tailRoom, true, 10)
	head = edge("first lines:\n", lines, shown, headRoom+tailRoom-len(tail), false, 5)
	return tail, head
}

func edge(title string, lines []string, shown map[int]bool, room int, fromEnd bool, max int) string {
	var picked []string
	used := len(title)
	for k := 0; k < len(lines) && len(picked) < max; k++ {
		i := k
		if fromEnd {
			i = len(lines) - 1 - k
		}
		if shown[i+1] {
			continue
		}
		s := numbered(Line{N: i + 1, Text: lines[i]})
		if used+len(s) > room {
			break
		}
		used += len(s)
		shown[i+1] = true
		picked = append(picked, s)
	}
	if len(picked) == 0 {
		return ""
	}
	if fromEnd {
		for i, j := 0, len(picked)-1; i < j; i, j = i+1, j-1 {
			picked[i], picked[j] = picked[j], picked[i]
		}
	}
	return title + strings.Join(picked, "")
}

func numbered(l Line) string { return numberedCut(l, maxLine) }

func numberedCut(l Line, width int) string {
	return fmt.Sprintf("  L%d: %s\n", l.N, cut(l.Text, width))
}

// IsBinary reports whether text looks like binary data rather than text:
// a NUL byte, or many bytes that are not UTF-8, in its first 8 KB.
func IsBinary(text string) bool {
	sample := text[:min(len(text), 8192)]
	if strings.IndexByte(sample, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRuneInString(sample[i:])
		if r == utf8.RuneError && size == 1 && len(sample)-i >= utf8.UTFMax {
			bad++
		}
		i += size
	}
	return bad*10 > len(sample)
}

// splitLines splits text into lines without their newline; a final
// newline does not make an extra empty line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// cut shortens a line of output to n bytes, and makes it valid UTF-8.
func cut(s string, n int) string {
	return text.Cut(strings.ToValidUTF8(strings.TrimRight(s, "\r"), "\uFFFD"), n)
}

// tokens estimates tokens from bytes (about four per token for English
// and code): a label, not a measurement.
func tokens(bytes int) string {
	t := (bytes + 3) / 4
	if t >= 1000 {
		return fmt.Sprintf("%.1fk", float64(t)/1000)
	}
	return fmt.Sprint(t)
}

// commas writes 204812 as "204,812".
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// binaryKind names common binary formats by their first bytes. (net/http's
// DetectContentType knows more, but linking net/http costs every hook
// process its start-up.)
func binaryKind(data string) string {
	for _, m := range magics {
		if strings.HasPrefix(data, m.prefix) {
			return m.kind
		}
	}
	return "application/octet-stream"
}

var magics = []struct{ prefix, kind string }{
	{"\x89PNG\r\n\x1a\n", "image/png"}, {"\xff\xd8\xff", "image/jpeg"}, {"GIF87a", "image/gif"}, {"GIF89a", "image/gif"},
	{"RIFF", "audio/video (RIFF)"}, {"%PDF-", "application/pdf"}, {"PK\x03\x04", "application/zip"},
	{"\x1f\x8b", "application/gzip"}, {"\x28\xb5\x2f\xfd", "application/zstd"}, {"BZh", "application/x-bzip2"},
	{"\xfd7zXZ\x00", "application/x-xz"}, {"\x7fELF", "application/x-elf"}, {"\x00asm", "application/wasm"},
	{"SQLite format 3\x00", "application/vnd.sqlite3"}, {"\xca\xfe\xba\xbe", "application/java-vm"},
	{"\xcf\xfa\xed\xfe", "application/x-mach-binary"}, {"MZ", "application/x-msdownload"},
}
