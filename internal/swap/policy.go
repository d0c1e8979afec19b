package swap

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/shell"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// EntryID names the entry of one tool call: the same call stored twice (a
// retried hook) gets the same id.
func EntryID(session, toolUseID string) string {
	sum := sha256.Sum256([]byte(session + "\x00" + toolUseID))
	return hex.EncodeToString(sum[:])[:12]
}

// CopyPrefix starts the names of the plain-text copies ctxkeep writes next
// to the client's own persisted outputs.
const CopyPrefix = "ctxkeep-"

// Call is what the pass-through rules look at.
type Call struct {
	Tool     string
	Command  string // Bash
	FilePath string // Read
	Agent    bool   // made inside a subagent
}

// PassThrough says why a call's output must reach the model whole, or ""
// when it may be swapped out.
func PassThrough(c Call, cfg config.Swap) string {
	if why := passThroughCall(c, cfg); why != "" {
		return why
	}
	return trivialCommand(c, cfg)
}

// passThroughCall is PassThrough but for the trivial command, the one
// rule that reads the command line.
func passThroughCall(c Call, cfg config.Swap) string {
	switch {
	case !cfg.Enabled:
		return "swap disabled"
	case c.Agent && !cfg.Subagents:
		return "subagent call"
	case c.Tool == "Read" && isCopy(c.FilePath), IsOwnTool(c.Tool):
		return "ctxkeep's own stored content"
	case c.Tool == "Read" && matchesFile(c.FilePath, cfg.PassthroughFiles):
		return "file that must arrive whole"
	case c.Tool == "Bash" && IsWrapped(c.Command):
		return "already captured by the wrapper"
	}
	return ""
}

func trivialCommand(c Call, cfg config.Swap) string {
	if c.Tool == "Bash" && allCommandsMatch(c.Command, cfg.PassthroughCommands) {
		return trivial
	}
	return ""
}

func isCopy(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, CopyPrefix) && filepath.Base(filepath.Dir(path)) == "tool-results"
}

func matchesFile(path string, patterns []string) bool {
	base := filepath.Base(path)
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, base); ok {
			return true
		}
	}
	return false
}

// allCommandsMatch reports whether every simple command of a command line
// runs one of the patterns ("cd sub && git branch -a"), those of its
// substitutions included. "cd sub && npm test" is not trivial because of
// its second half; a line that does not parse is not trivial either.
func allCommandsMatch(command string, patterns []string) bool {
	line, err := shell.Read(command)
	if err != nil || len(line.Commands) == 0 {
		return false
	}
	for i := range line.Commands {
		if !MatchesAny(line.Commands[i].Run(), patterns) {
			return false
		}
	}
	return true
}

// RunsAny reports whether any simple command of a command line runs one of
// the patterns: "cd sub && go test ./..." and "timeout 600 go test ./..."
// run "go test". A line that does not parse runs none.
func RunsAny(command string, patterns []string) bool {
	line, err := shell.Read(command)
	if err != nil {
		return false
	}
	for i := range line.Commands {
		if MatchesAny(line.Commands[i].Run(), patterns) {
			return true
		}
	}
	return false
}

// MatchesAny reports whether a simple command's words (shell.Command.Run)
// start with the words of one of the patterns ("git status" matches
// "git status -s", not "git statusx").
func MatchesAny(words []string, patterns []string) bool {
	for _, p := range patterns {
		if startsWith(words, p) {
			return true
		}
	}
	return false
}

// startsWith reports whether words start with the words of pattern,
// without splitting the pattern into a slice.
func startsWith(words []string, pattern string) bool {
	n := 0
	for pw := range strings.FieldsSeq(pattern) {
		if n >= len(words) || words[n] != pw {
			return false
		}
		n++
	}
	return n > 0
}

// brief is the one-line description of an entry for inventories.
func brief(it Item, lines []string, st Stats) string {
	if st.Binary {
		return fmt.Sprintf("binary, %s bytes", commas(len(it.Text)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s lines", commas(st.Lines))
	if it.Exit != NoExit {
		fmt.Fprintf(&b, ", exit %d", it.Exit)
	}
	if st.Outcome != "" {
		b.WriteString(", " + st.Outcome)
	}
	if st.Failures > 0 {
		fmt.Fprintf(&b, ", %d failure lines", st.Failures)
	}
	if n := len(lines); n > 0 && it.Tool == "Bash" {
		fmt.Fprintf(&b, "; last: %s", cut(strings.TrimSpace(lines[n-1]), 80))
	}
	return b.String()
}

// trivial is PassThrough's reason for a command whose output is small and
// must arrive whole: pwd, echo, git branch.
const trivial = "trivial command"

// BelowThreshold is Decide's reason for an output small enough to stay,
// unless a condenser shrinks it (Condensing).
const BelowThreshold = "below the threshold"

// Decide says why a tool output of text stays in the context, or "" when
// it is swapped out: the pass-through rules and the tool's threshold (a
// small output is BelowThreshold, whatever its command).
// The hook and `ctxkeep replay` both decide with it.
func Decide(c Call, text string, cfg *config.Config) string {
	if why := passThroughCall(c, cfg.Swap); why != "" {
		return why
	}
	if !Over(text, cfg.ThresholdFor(c.Tool)-shownExtra(c.Tool, text)) {
		return BelowThreshold // the command is read only when it matters: most outputs are small
	}
	return trivialCommand(c, cfg.Swap)
}

// Condensing returns the condenser for a call's output text, or nil: a
// Bash command a condenser knows, with swap.condense on, no pass-through
// rule in the way, and an output of minCondense bytes at least.
func Condensing(c Call, text string, cfg *config.Config) *Condenser {
	if c.Tool != "Bash" || len(text) < minCondense || !cfg.Swap.Condense || PassThrough(c, cfg.Swap) != "" {
		return nil
	}
	return CondenserFor(c.Command)
}

// minCondense is the smallest output worth condensing: below it, the lines
// a condensed output adds (what was folded, how to get it back) eat what
// folding saves, and the hook has nothing to do for the many small outputs.
const minCondense = 1000

// What the model sees in place of an output (Stats.Kind).
const (
	KindView      = "view"      // the view of an output swapped out
	KindCondensed = "condensed" // the output with its noise folded
	KindPointer   = "pointer"   // a re-read answered by a pointer to the earlier one
	KindCleaned   = "cleaned"   // a small output without its control sequences
)

// Render is what the model sees in place of it.Text, and its figures:
// for an output over its threshold (over), the condensed text when cd
// folds it within the view's budget (in bytes, as a view), else the view; below it, the
// condensed text when it saves at least minSaving percent of the
// characters, else "" (the output stays whole).
func Render(it Item, cd *Condenser, over bool, b Budget, minSaving int) (string, Stats) {
	if cd != nil {
		c, ok := cd.Condense(it, b)
		size := utf8.RuneCountInString(c.Text)
		if ok && size < c.Chars && (over && len(c.Text) <= b.Chars || !over && size*100 <= c.Chars*(100-minSaving)) {
			return c.Text, c.stats(it, size)
		}
	}
	if !over {
		if it.Tool == "Bash" && cleanable(it.Text) {
			return cleaned(it, b)
		}
		return "", Stats{}
	}
	view, st := View(it, b)
	st.Kind = KindView
	return view, st
}

// Replacing says whether ctxkeep replaces what the model sees of a call's
// output, and how Render is to make it: over its threshold (a view, or a
// condensed output that fits); below it, when a condenser may shrink it,
// or when it holds control sequences (colour codes, progress bars
// rewritten with carriage returns), which reach the model as noise. The
// hook and `ctxkeep replay` decide with it.
func Replacing(c Call, text string, cfg *config.Config) (cd *Condenser, over, ok bool) {
	why := Decide(c, text, cfg)
	cd = Condensing(c, text, cfg)
	switch {
	case why == "":
		return cd, true, true
	case why == BelowThreshold && cd != nil:
		return cd, false, true
	case (why == BelowThreshold || why == trivial) && Cleaning(c, text):
		return cd, false, true
	}
	return nil, false, false
}

// Cleaning reports whether a Bash output below its threshold is replaced
// by the same text without its control sequences.
func Cleaning(c Call, text string) bool {
	return c.Tool == "Bash" && cleanable(text)
}

// cleanable reports whether text holds what a terminal interprets rather
// than shows: an escape, a carriage return that does not end a line, a
// backspace. (A binary output is never cleaned: it is not shown.)
func cleanable(t string) bool {
	for i := strings.IndexAny(t, "\x1b\r\b"); i >= 0; {
		if t[i] != '\r' || i+1 < len(t) && t[i+1] != '\n' {
			return !IsBinary(t)
		}
		next := strings.IndexAny(t[i+1:], "\x1b\r\b")
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// cleaned is a small output as a terminal shows it (text.Printable):
// line for line, without what the model would read as noise. The original
// is stored as for every replacement.
func cleaned(it Item, b Budget) (string, Stats) {
	chars := utf8.RuneCountInString(it.Text)
	if !b.KeepSecrets {
		it.Text = redact.String(it.Text)
	}
	out := text.Printable(it.Text)
	lines := splitLines(out)
	st := Stats{Chars: chars, Lines: len(lines), ViewChars: utf8.RuneCountInString(out), Kind: KindCleaned}
	st.Brief = brief(it, lines, st)
	return out, st
}

// shownExtra is what the client adds to an output before the model sees
// it: a Read shows each line after its number and a tab ("  42\t…").
// Thresholds are about what enters the context, so they count it.
func shownExtra(tool, text string) int {
	if tool != "Read" || text == "" {
		return 0
	}
	lines := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
	return lines * (len(strconv.Itoa(lines)) + 1)
}

// Over reports whether text is longer than threshold characters, counting
// runes only when the byte length leaves a doubt (a character is at most
// utf8.UTFMax bytes), and then only as far as the threshold.
func Over(text string, threshold int) bool {
	switch {
	case len(text) <= threshold:
		return false
	case len(text) > utf8.UTFMax*threshold:
		return true
	}
	n := 0
	for range text {
		if n++; n > threshold {
			return true
		}
	}
	return false
}
