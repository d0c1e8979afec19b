package swap

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/shell"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// Condensing: a test run that prints one line per passing test, a package
// manager's progress, a build's compiler invocations are noise the model
// pays for on every later request. A condenser folds those lines — each
// run of them becomes one line that says what was folded and where — and
// keeps everything else as the command printed it: every failure with its
// causes (the failure model, failures.go: a condenser never folds them,
// whatever its rules say), the summaries and counts, the first and the
// last lines. The exact original is stored like a swapped output, so any
// folded line comes back with `ctxkeep show ID --lines A:B`.
//
// Condensers are data (condensers.go): a new one is a row of the table and
// a case in testdata/condense, not a new code path.

// Condenser folds the noise of one kind of command's output.
type Condenser struct {
	Name     string   // as the model reads it: "go test"
	Commands []string // the first words of the commands it knows ("go test", "gotestsum")
	// Alone marks a condenser whose rules fold by position (the lines of a
	// section past its first ones, the middle of a listing): right only for
	// the command's own output. It applies when the other parts of the
	// command line only move (cd) or filter lines (head, grep, sort…).
	Alone   bool
	Fold    []Fold   // noise, folded wherever it is
	Section *Section // a cap on the lines of each section (a commit, a file's diff)
	Middle  *Middle  // a cap on a listing: its first and last lines are kept

	once sync.Once
	fold []compiledFold
	sect []glob
}

// Fold is one kind of noise line.
type Fold struct {
	Label    string   // what the lines are, counted in the header: "passed tests"
	Patterns []string // globs (glob.go) on the line as a terminal shows it, trimmed
	Indented bool     // only lines that start with a space or a tab
}

// Section caps the lines of each section of an output.
type Section struct {
	Starts []string // globs of a section's first line
	Keep   int      // lines of a section kept, its first one included
	Label  string   // what the folded lines are
	// SpareLast leaves the last section whole: mix compiles the
	// dependencies, each under "==> name", and the project last.
	SpareLast bool
}

// Middle caps a listing: past First lines, all but the Last are folded.
type Middle struct {
	First, Last int
	Label       string
}

type compiledFold struct {
	label    string
	globs    []glob
	leads    []byte // each glob's first byte, 0 when it starts with a run: most lines are told apart by it
	indented bool
}

func (c *Condenser) compile() {
	c.once.Do(func() {
		for _, f := range c.Fold {
			cf := compiledFold{label: f.Label, indented: f.Indented}
			for _, p := range f.Patterns {
				g := parseGlob(p)
				var lead byte
				if len(g) > 0 && g[0].lit != "" {
					lead = g[0].lit[0]
				}
				cf.globs, cf.leads = append(cf.globs, g), append(cf.leads, lead)
			}
			c.fold = append(c.fold, cf)
		}
		if c.Section != nil {
			for _, p := range c.Section.Starts {
				c.sect = append(c.sect, parseGlob(p))
			}
		}
	})
}

// keptEdges are the first and last lines of an output, always kept: where
// a command says what it runs and how it ended.
const (
	keptFirst = 2
	keptLast  = 3
)

// filters are commands that pass lines through as they are, filtered or
// reordered: after them, an output still has its command's shape.
var filters = []string{"cd", "pushd", "popd", "head", "tail", "sort", "uniq", "grep", "egrep", "fgrep", "rg", "cat", "column", "echo", "true"}

// CondenserFor returns the condenser for a Bash command line, or nil.
// Condensers are tried in the table's order, on every simple command of
// the line that prints ("cd app && mix test 2>&1 | tail -20" runs mix
// test; the commands of a substitution print into a word). A line that
// does not parse gets none.
func CondenserFor(command string) *Condenser {
	line, err := shell.Read(command)
	if err != nil {
		return nil
	}
	for _, c := range condensers {
		for i := range line.Commands {
			p := &line.Commands[i]
			if !p.Substituted && MatchesAny(p.Run(), c.Commands) && (!c.Alone || onlyFilters(line, i)) {
				return c
			}
		}
	}
	return nil
}

// onlyFilters reports whether every command of line that prints, but the
// one at except, only moves or passes lines through. Its words are read
// as written: `xargs grep` is no filter, it greps files.
func onlyFilters(line *shell.Line, except int) bool {
	for i := range line.Commands {
		p := &line.Commands[i]
		if i != except && !p.Substituted && !MatchesAny(p.Args, filters) {
			return false
		}
	}
	return true
}

// Condensed describes a condensed output.
type Condensed struct {
	Text     string         // what the model sees
	Chars    int            // characters of the original
	Lines    int            // lines of the original
	Folded   int            // lines folded
	Counts   map[string]int // lines each rule matches in the whole output, folded or not ("passed tests": 80)
	Failures int            // failure lines (markers and causes), all kept
	Last     string         // the original's last line, for inventories
	Outcome  string         // the runner's account (Stats.Outcome)
}

// stats are the figures of a condensed output, as a view's.
func (c Condensed) stats(it Item, size int) Stats {
	st := Stats{Chars: c.Chars, Lines: c.Lines, Failures: c.Failures, Shown: c.Failures, ViewChars: size, Kind: KindCondensed, Folded: c.Folded, Outcome: c.Outcome}
	b := fmt.Sprintf("%s lines, %s folded", commas(c.Lines), commas(c.Folded))
	if it.Exit != NoExit {
		b += fmt.Sprintf(", exit %d", it.Exit)
	}
	if c.Outcome != "" {
		b += ", " + c.Outcome
	}
	if c.Failures > 0 {
		b += fmt.Sprintf(", %d failure lines", c.Failures)
	}
	if c.Last != "" {
		b += "; last: " + cut(strings.TrimSpace(c.Last), 80)
	}
	st.Brief = b
	return st
}

// Condense folds it.Text (the output of it.Input) with c's rules. ok is
// false when nothing was folded.
func (c *Condenser) Condense(it Item, b Budget) (out Condensed, ok bool) {
	if IsBinary(it.Text) {
		return out, false
	}
	chars := utf8.RuneCountInString(it.Text)
	if !b.KeepSecrets { // as in a view; redaction keeps the lines
		it.Input = redact.String(it.Input)
		it.Text = redact.String(it.Text)
	}
	it.Input, it.Text = text.Printable(it.Input), text.Printable(it.Text) // line for line, as a terminal shows it
	lines := splitLines(it.Text)
	run := readRun(it.Input, it.Text, lines)
	fs, count := findFailures(it.Text, lines, -1)
	if run.Passing(it.Exit) { // what looks like a failure in a passing run is noise, folded by the rules
		fs, count = nil, Count{}
	}
	folds, counts := c.plan(it.Text, lines, fs, run.Failing)
	body, folded := render(lines, folds, c.label)
	if folded == 0 {
		return out, false
	}
	var h strings.Builder
	fmt.Fprintf(&h, "[ctxkeep] %s output condensed, kept exactly as id %s: %s chars, %s lines, %s folded",
		cut(c.Name, 60), it.ID, commas(chars), commas(len(lines)), commas(folded))
	if len(counts) > 0 {
		fmt.Fprintf(&h, "; in all %s", labelCounts(counts))
	}
	if it.Exit != NoExit {
		fmt.Fprintf(&h, "; exit status %d", it.Exit)
	}
	switch {
	case run.Known():
		fmt.Fprintf(&h, "; %s", run.Headline(it.Exit))
		if count.Lines > 0 {
			fmt.Fprintf(&h, "; %s, all kept", text.Plural(count.Lines, "failure line"))
		}
	case count.Lines > 0:
		fmt.Fprintf(&h, "; %s, all kept with their causes", text.Plural(count.Lines, "failure line"))
	}
	h.WriteString(".\n")
	out = Condensed{Text: h.String() + body + condensedFooter(it, b.Retrieval), Chars: chars, Lines: len(lines), Folded: folded, Counts: counts, Failures: count.Lines, Last: lines[len(lines)-1], Outcome: run.Outcome(it.Exit)}
	return out, true
}

// condensedFooter says how to get folded lines back: the command, or the
// MCP tool when the session has it (r).
func condensedFooter(it Item, r Retrieval) string {
	show := r.Verb() + " " + r.Show(it.ID, "lines", "A:B")
	if it.CopyPath != "" {
		return fmt.Sprintf("Folded lines back exactly: %s, or Read %s with offset/limit.\n", show, cut(it.CopyPath, 300))
	}
	return fmt.Sprintf("Folded lines back exactly: %s.\n", show)
}

// maxBlockGap is how far apart two lines of one failure may be for the
// lines between them to be part of its block (an assertion's code and
// values, a stack frame): go test -v prints a test's log far above its
// "--- FAIL", and the passing tests between are no part of it.
const maxBlockGap = 4

// foldKind is what a line is folded as: an index in a condenser's Fold
// rules, one of the position kinds below, or noFold (one per line of
// outputs of tens of thousands of lines: small).
type foldKind int16

// noFold marks a line that stays.
const noFold foldKind = -1

// plan says, for each line, the label it is folded under (an index in
// c.Fold, or one of the position labels below), or noFold; and how many
// lines of the whole output each fold rule matches. The lines of failures
// fs and those naming what failed stay.
func (c *Condenser) plan(text string, lines []string, fs []Failure, named []Named) (folds []foldKind, counts map[string]int) {
	c.compile()
	folds = make([]foldKind, len(lines))
	counts = map[string]int{}
	pinned := make([]bool, len(lines))
	for i := range lines {
		pinned[i] = i < keptFirst || i >= len(lines)-keptLast
	}
	for _, n := range named { // where the runner names what failed
		pinned[n.Line.N-1] = true
	}
	for _, f := range fs { // a failure's lines, and the few between them (its block), stay
		ls := f.Lines()
		for i, l := range ls {
			pinned[l.N-1] = true
			if i > 0 && l.N-ls[i-1].N <= maxBlockGap {
				for n := ls[i-1].N; n < l.N; n++ {
					pinned[n-1] = true
				}
			}
		}
	}
	rules := make([]foldKind, len(lines)) // the rule each line matches, pinned or not
	perRule := make([]int, len(c.fold))
	suspect := failureWordLines(text, lines)
	for i, raw := range lines {
		rules[i] = c.foldOf(raw, suspect[i])
		if rules[i] != noFold {
			perRule[rules[i]]++
		}
		folds[i] = noFold
		if !pinned[i] {
			folds[i] = rules[i]
		}
	}
	for k, n := range perRule {
		if n > 0 {
			counts[c.fold[k].label] += n
		}
	}
	c.capSections(lines, folds, rules, pinned)
	c.capMiddle(lines, folds, pinned)
	absorbBlanks(lines, folds)
	return folds, counts
}

// Labels of lines folded for where they are rather than what they say.
const (
	sectionLabel foldKind = 1000 + iota
	middleLabel
	blankLabel
)

// foldOf is the rule that folds raw, or noFold; suspect says that the line
// may hold a failure word (failureWordLines).
func (c *Condenser) foldOf(raw string, suspect bool) foldKind {
	t := plain(raw)
	if t == "" {
		return noFold
	}
	indented := raw[0] == ' ' || raw[0] == '\t'
	for k, f := range c.fold {
		if f.indented && !indented {
			continue
		}
		for j, g := range f.globs {
			if lead := f.leads[j]; lead != 0 && lead != t[0] {
				continue
			}
			if g.match(t) {
				if suspect && saysFailure(t) {
					return noFold
				}
				return foldKind(k)
			}
		}
	}
	return noFold
}

// failureWordLines marks the lines that hold a piece of a failure word
// (saysFailure): a few fast searches over the whole output, so that the
// word check runs only on those lines.
func failureWordLines(text string, lines []string) []bool {
	marks := make([]bool, len(lines))
	starts := make([]int, len(lines)+1) // of each line in text
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l) + 1
	}
	for _, piece := range []string{"rror", "RROR", "ail", "AIL", "atal", "ATAL", "panic"} {
		for at := 0; at < len(text); {
			k := strings.Index(text[at:], piece)
			if k < 0 {
				break
			}
			i, found := slices.BinarySearch(starts, at+k)
			if !found {
				i-- // inside line i-1
			}
			if i >= len(lines) {
				break
			}
			marks[i] = true
			at = starts[i+1] // on to the next line
		}
	}
	return marks
}

// saysFailure reports whether t holds, as a word, error, Error, ERROR,
// fail, failed, failure, Failed, FAIL, FAILED, fatal, Fatal, FATAL or
// panic: those lines are never folded, whatever a rule says — a second
// guard behind the failure model, for the lines a tool prints around a
// failure in a shape no rule knows ("Preparing metadata (setup.py) ...
// error"). It runs on every line a rule would fold (tens of thousands in a
// large test log), so it only looks at word starts that may begin one.
func saysFailure(t string) bool {
	for i := 0; i < len(t); {
		k := strings.IndexAny(t[i:], "eEfFp")
		if k < 0 {
			return false
		}
		i += k
		if i > 0 && isWordByte(t, i-1) {
			i++
			continue
		}
		j := i + 1
		for j < len(t) && isWordByte(t, j) {
			j++
		}
		switch t[i:j] {
		case "error", "Error", "ERROR", "fail", "failed", "failure", "Failed", "FAIL", "FAILED", "fatal", "Fatal", "FATAL", "panic":
			return true
		}
		i = j
	}
	return false
}

// capSections folds the lines of each section past its first Keep lines
// that are not folded already.
func (c *Condenser) capSections(lines []string, folds, rules []foldKind, pinned []bool) {
	if c.Section == nil {
		return
	}
	kept := -1 // lines kept in the current section; -1 before the first
	last := len(lines)
	for i, raw := range lines {
		if c.startsSection(raw) {
			last = i
		}
	}
	for i, raw := range lines {
		if c.Section.SpareLast && i == last {
			return
		}
		t := plain(raw)
		if c.startsSection(raw) {
			kept = 0
		}
		if kept < 0 || rules[i] != noFold {
			continue
		}
		if kept >= c.Section.Keep && !pinned[i] {
			folds[i] = sectionLabel
			continue
		}
		if t != "" {
			kept++ // a pinned line counts as kept
		}
	}
}

func (c *Condenser) startsSection(raw string) bool {
	t := plain(raw)
	return slices.ContainsFunc(c.sect, func(g glob) bool { return g.match(t) })
}

// capMiddle folds the kept lines of a listing between its first First and
// its last Last.
func (c *Condenser) capMiddle(lines []string, folds []foldKind, pinned []bool) {
	if c.Middle == nil {
		return
	}
	var kept []int
	for i := range lines {
		if folds[i] == noFold && strings.TrimSpace(lines[i]) != "" {
			kept = append(kept, i)
		}
	}
	if len(kept) <= c.Middle.First+c.Middle.Last {
		return
	}
	for _, i := range kept[c.Middle.First : len(kept)-c.Middle.Last] {
		if !pinned[i] {
			folds[i] = middleLabel
		}
	}
}

// absorbBlanks folds the blank lines between folded ones, so that a run
// of noise separated by blank lines is folded as one.
func absorbBlanks(lines []string, folds []foldKind) {
	for i := 0; i < len(lines); {
		if folds[i] != noFold || strings.TrimSpace(lines[i]) != "" {
			i++
			continue
		}
		j := i
		for j < len(lines) && folds[j] == noFold && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if i > 0 && folds[i-1] != noFold && j < len(lines) && folds[j] != noFold {
			for k := i; k < j; k++ {
				folds[k] = blankLabel
			}
		}
		i = j
	}
}

// render writes the kept lines and one line for each run of folded ones.
// A run shorter than the line that would stand for it stays as it is.
func render(lines []string, folds []foldKind, label func(foldKind) string) (body string, folded int) {
	var b strings.Builder
	for i := 0; i < len(lines); {
		if folds[i] == noFold {
			b.WriteString(lines[i])
			b.WriteByte('\n')
			i++
			continue
		}
		j, size := i, 0
		for j < len(lines) && folds[j] != noFold {
			size += len(lines[j]) + 1
			j++
		}
		run := map[string]int{}
		for k := i; k < j; k++ {
			if l := label(folds[k]); l != "" {
				run[l]++
			}
		}
		where := fmt.Sprintf("L%d–L%d", i+1, j)
		if j == i+1 {
			where = fmt.Sprintf("L%d", j)
		}
		marker := fmt.Sprintf("[… %s folded, %s: %s]\n", text.Plural(j-i, "line"), where, labelCounts(run))
		if len(marker) >= size {
			for k := i; k < j; k++ {
				b.WriteString(lines[k])
				b.WriteByte('\n')
			}
		} else {
			b.WriteString(marker)
			folded += j - i
		}
		i = j
	}
	return b.String(), folded
}

// label names a fold; blank lines are counted as lines only.
func (c *Condenser) label(k foldKind) string {
	switch {
	case k == sectionLabel:
		return c.Section.Label
	case k == middleLabel:
		return c.Middle.Label
	case k >= 0 && int(k) < len(c.fold):
		return c.fold[k].label
	}
	return ""
}

// labelCounts writes "passed tests: 80, test starts: 80", largest first.
func labelCounts(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
