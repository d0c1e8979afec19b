package search

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// Snippets are the lines of a hit shown with it.
const (
	snippetLines   = 3
	snippetLineLen = 240
)

// Snippet is what a hit shows of itself: the lines of texts that match
// query best (bestLines), one per line.
func Snippet(texts []string, query string) string {
	srcs := make([]source, len(texts))
	for i, t := range texts {
		srcs[i] = source{text: t}
	}
	var out []string
	for _, l := range bestLines(srcs, query) {
		out = append(out, l.Text)
	}
	return strings.Join(out, "\n")
}

// bestLines are the lines of the sources that match query best, as a
// terminal would show them (no colour codes or other control characters,
// secrets redacted), in their order, each cut around its first match.
// Lines holding the whole query as a phrase are shown alone; otherwise a
// line scores by the query's words it holds (common words aside), each
// weighing more the fewer lines hold it, and the lines scoring at least a
// third of the best are shown, at most snippetLines. None when no line
// matches.
func bestLines(srcs []source, query string) []Line {
	all := text.Tokens(query)
	words := queryTerms(query)
	if len(words) == 0 {
		words = all
	}
	if len(words) == 0 {
		return nil
	}
	phrase := " " + strings.Join(all, " ") + " "
	type line struct {
		Line
		has    []bool // which words of the query it holds
		phrase bool
		score  float64
		pos    int
	}
	var lines []line
	holders := make([]int, len(words))
	for _, src := range srcs {
		t := redact.String(src.text) // whole, before its lines: a PEM block spans several
		n := 0
		for raw := range strings.Lines(t) {
			n++
			l := line{Line: Line{Text: printable(raw), From: src.from, N: n}, has: make([]bool, len(words)), pos: len(lines)}
			lt, any := text.Tokens(l.Text), false
			for i, w := range words {
				if slices.ContainsFunc(lt, func(x string) bool { return sameWord(x, w) }) {
					l.has[i], any = true, true
					holders[i]++
				}
			}
			if any {
				l.phrase = len(all) > 1 && strings.Contains(" "+strings.Join(lt, " ")+" ", phrase)
				lines = append(lines, l)
			}
		}
	}
	best, phrased := 0.0, false
	for i := range lines {
		for k, h := range lines[i].has {
			if h {
				lines[i].score += 1 / float64(holders[k])
			}
		}
		best, phrased = max(best, lines[i].score), phrased || lines[i].phrase
	}
	lines = slices.DeleteFunc(lines, func(l line) bool {
		if phrased {
			return !l.phrase
		}
		return l.score < best/3
	})
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(b.score, a.score) })
	lines = lines[:min(len(lines), snippetLines)]
	slices.SortFunc(lines, func(a, b line) int { return a.pos - b.pos })
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i] = l.Line
		out[i].Text = around(l.Text, all)
	}
	return out
}

// Texts are what a chunk's snippet is taken from: its body and the exact
// outputs it refers to (an output ctxkeep kept out of the context is
// searched too, so its matching line is shown). Those are the entries
// archive recorded for the step's calls, of the step's own session; an id
// in the body's text is never followed (internal/recall).
func Texts(ctx context.Context, st ctxkeep.OutputStore, c ctxkeep.Chunk) []string {
	texts := []string{c.Body}
	for _, id := range c.Meta.Entries {
		if e, err := st.Entry(ctx, id); err == nil && e.ID == id && e.SessionID == c.SessionID {
			if data, err := st.Open(ctx, e.Hash); err == nil {
				texts = append(texts, string(data))
			}
		}
	}
	return texts
}

// sameWord matches a word of a line to a word of the query, allowing the
// endings the index's stemmer takes off (tests, failures, failing).
func sameWord(x, w string) bool {
	if x == w {
		return true
	}
	stem := func(s string) string {
		for _, suf := range []string{"ing", "es", "ed", "s"} {
			if len(s) > len(suf)+2 && strings.HasSuffix(s, suf) {
				return s[:len(s)-len(suf)]
			}
		}
		return s
	}
	return stem(x) == stem(w)
}

// printable is a line as a terminal shows it (text.Printable: control
// sequences of every kind, a progress line's last state), trimmed, without
// control characters; tabs become spaces.
func printable(line string) string {
	l := strings.TrimSpace(text.Printable(line))
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, l)
}

// around cuts a long line to snippetLineLen bytes around its first word of
// the query.
func around(l string, words []string) string {
	if len(l) <= snippetLineLen {
		return l
	}
	low := strings.ToLower(l)
	at := len(l)
	for _, w := range words {
		if i := strings.Index(low, w); i >= 0 && i < at {
			at = i
		}
	}
	if at == len(l) {
		at = 0
	}
	from := max(0, at-snippetLineLen/3)
	for from > 0 && from < len(l) && l[from]&0xC0 == 0x80 {
		from--
	}
	out := text.Cut(l[from:], snippetLineLen)
	if from > 0 {
		out = "…" + out
	}
	return out
}
