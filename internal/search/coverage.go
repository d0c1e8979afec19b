package search

import (
	"slices"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// queryTerms are the distinct words of a query worth matching.
func queryTerms(q string) []string {
	var out []string
	for _, w := range text.Tokens(q) {
		if len(w) > 1 && !text.Stopword(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// coverage is the share of the query's words a chunk's heading holds
// (the user's words, its own words, files and commands: Chunk.Heading),
// what a step is about, as against the outputs it carries, whose length
// drowns its own words in the full-text score.
func coverage(terms []string, c ctxkeep.Chunk) float64 {
	if len(terms) == 0 {
		return 0
	}
	words, files := c.Heading()
	head := text.Tokens(c.Prompt + "\n" + words + "\n" + files)
	n := 0
	for _, w := range terms {
		if slices.ContainsFunc(head, func(x string) bool { return sameWord(x, w) }) {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}
