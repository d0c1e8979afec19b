package search

import (
	"context"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// Shown is what search shows of a hit besides its key and summary: what
// in it the query named — its files, commands (each with its latest
// result line), the failures of its runs, its tasks — and its lines that
// match best, from the step and the stored outputs it refers to. The
// agent reads the detail it searched for there, without recalling the
// step.
type Shown struct {
	Matched []Match `json:"matched,omitempty"`
	// Ran are the other commands the step ran, with how they went: what a
	// step did is often what was searched for in other words ("the
	// command that made it pass").
	Ran   []Match `json:"ran,omitempty"`
	Lines []Line  `json:"lines,omitempty"`
}

// Match is something a hit holds that the query named.
type Match struct {
	Kind   string `json:"kind"` // "file", "command", "failure", "task"
	Name   string `json:"name"`
	Result string `json:"result,omitempty"` // a command's result line, with its exit status
}

// Line is a line of a hit that matches the query.
type Line struct {
	Text string `json:"text"`
	// From is where the line is: "step" (the step as recall prints it,
	// outputs by reference) or the id of the stored output it is in.
	From string `json:"from"`
	N    int    `json:"line"` // its number there, from 1
}

// maxMatched bounds the matches shown with a hit.
const maxMatched = 6

// Show is what search shows of chunk c for query: st gives the stored
// outputs it refers to (none are read when it is nil).
func Show(ctx context.Context, st ctxkeep.OutputStore, c ctxkeep.Chunk, query string) Shown {
	s := Named(c, query)
	s.Lines = bestLines(sources(ctx, st, c), query)
	return s
}

// Named is Show without the lines: what the query named in c, and what
// else it ran, from its metadata alone.
func Named(c ctxkeep.Chunk, query string) Shown {
	s := Shown{Matched: Matched(c, query)}
	for _, cmd := range c.Meta.Commands {
		name := safe(cmd.Run, 160)
		if len(s.Ran) < maxRan && !slices.ContainsFunc(s.Matched, func(m Match) bool { return m.Kind == "command" && m.Name == name }) &&
			!slices.ContainsFunc(s.Ran, func(m Match) bool { return m.Name == name }) {
			s.Ran = append(s.Ran, Match{Kind: "command", Name: name, Result: safe(result(cmd), 160)})
		}
	}
	return s
}

// maxRan bounds the other commands shown with a hit.
const maxRan = 4

// Text is what a terminal shows of s, a line each: the matches, then the
// lines.
func (s Shown) Text() string {
	var b strings.Builder
	if len(s.Matched) > 0 {
		var parts []string
		for _, m := range s.Matched {
			p := m.Kind + " " + m.Name
			if m.Result != "" {
				p += " → " + m.Result
			}
			parts = append(parts, p)
		}
		b.WriteString("matched " + strings.Join(parts, " · ") + "\n")
	}
	if len(s.Ran) > 0 {
		var parts []string
		for _, m := range s.Ran {
			p := "`" + m.Name + "`"
			if m.Result != "" {
				p += " → " + m.Result
			}
			parts = append(parts, p)
		}
		b.WriteString("ran " + strings.Join(parts, " · ") + "\n")
	}
	for _, l := range s.Lines {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// Matched lists what in c the query names: files, commands, failures and
// tasks holding one of its words (as the index's stemmer matches them),
// those holding the most of them first.
func Matched(c ctxkeep.Chunk, query string) []Match {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	type scored struct {
		Match
		n int
	}
	var out []scored
	add := func(kind, name, result string) {
		if name == "" || slices.ContainsFunc(out, func(s scored) bool { return s.Kind == kind && s.Name == name }) {
			return
		}
		words := text.Tokens(name)
		n := 0
		for _, w := range terms {
			if slices.ContainsFunc(words, func(x string) bool { return sameWord(x, w) }) {
				n++
			}
		}
		if n > 0 {
			out = append(out, scored{Match{Kind: kind, Name: safe(name, 160), Result: safe(result, 160)}, n})
		}
	}
	// A failure is named by its own words, not by a bare marker ("FAIL").
	addFailure := func(e string) {
		if len(text.Tokens(e)) > 1 {
			add("failure", e, "")
		}
	}
	for _, f := range c.Meta.Files() {
		add("file", f, "")
	}
	for _, cmd := range c.Meta.Commands {
		add("command", cmd.Run, result(cmd))
		for _, e := range cmd.Errors {
			addFailure(e)
		}
	}
	for _, e := range c.Meta.Errors {
		addFailure(e)
	}
	for _, t := range c.Meta.Tasks {
		name := strings.TrimSpace(t.ID + " " + t.Subject)
		if t.Subject == "" && t.Status != "" {
			name = t.ID + " (" + t.Status + ")"
		}
		add("task", name, "")
	}
	slices.SortStableFunc(out, func(a, b scored) int { return b.n - a.n })
	ms := make([]Match, 0, min(len(out), maxMatched))
	for _, s := range out[:min(len(out), maxMatched)] {
		ms = append(ms, s.Match)
	}
	return ms
}

// result is how a command went, in a few words: its exit status and its
// result line.
func result(c ctxkeep.Command) string {
	var parts []string
	switch {
	case c.Exit > 0:
		parts = append(parts, "exit "+itoa(c.Exit))
	case c.Exit == 0:
		parts = append(parts, "exit 0")
	}
	if r := orElse(c.Result, c.Outcome); r != "" {
		parts = append(parts, r)
	}
	return strings.Join(parts, ": ")
}

func orElse(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// safe is archived text as it may be shown: as a terminal shows it, on
// one line, secrets redacted, cut to n bytes.
func safe(s string, n int) string { return text.Squash(redact.String(text.Printable(s)), n) }

// source is a text a hit's lines are taken from.
type source struct {
	from string // "step", or a stored output's id
	text string
}

// sources are the chunk's body and the exact outputs it refers to (those
// archive recorded for its calls, of its own session: Texts).
func sources(ctx context.Context, st ctxkeep.OutputStore, c ctxkeep.Chunk) []source {
	out := []source{{"step", c.Prompt + "\n" + c.Body}}
	if c.Prompt == "" || strings.HasPrefix(c.Body, "user: ") {
		out[0].text = c.Body
	}
	for _, id := range c.Meta.Entries {
		if st == nil {
			break
		}
		if e, err := st.Entry(ctx, id); err == nil && e.ID == id && e.SessionID == c.SessionID {
			if data, err := st.Open(ctx, e.Hash); err == nil {
				out = append(out, source{id, string(data)})
			}
		}
	}
	return out
}
