// Package search ranks what the archive's full-text search found: BM25
// first, then how recent a chunk is and whether it touches the files the
// session works on now, so that "the test we fixed in the parser" finds
// this week's parser turn before last year's. An Embedder, when one is
// configured, re-ranks the same candidates by meaning; none ships (no
// offline embedding model is available to the project, docs/DEPENDENCIES.md), and
// none is faked.
package search

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// Embedder turns texts into vectors whose cosine similarity says how close
// their meanings are. Implementations must return one vector per text, all
// of the same length.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Signals are what ranking knows besides the words.
type Signals struct {
	Now      time.Time
	Files    []string // files the session works on now
	Embedder Embedder // nil: lexical ranking only
}

// Result is a ranked hit.
type Result struct {
	ctxkeep.ChunkHit
	Score float64 `json:"score"` // 0…1, higher is better
}

// Weights of the ranking, summing to 1. Lexical relevance dominates;
// recency and shared files break near-ties. With an embedder, meaning
// takes a share of the lexical weight.
const (
	wLexical  = 0.60
	wCoverage = 0.10 // the share of the query's words the chunk's heading holds
	wTurn     = 0.15 // how much the rest of its turn matches
	wRecency  = 0.10
	wFiles    = 0.05
	wSemantic = 0.35 // taken from wLexical when an embedder is set
	halfLife  = 7 * 24 * time.Hour
)

// Query is a search of the archive.
type Query struct {
	Text    string
	Session string // only this session's chunks, when set
	Project string // only this project's, when set
	Kind    string // only chunks of this kind, when set
	// Conversation keeps only the conversation: steps, and whole turns
	// archived before steps; no compaction summaries.
	Conversation bool
	Limit        int             // results wanted (default 10)
	Skip         map[string]bool // chunk keys to leave out (already shown)
	// MinLexical drops hits whose lexical relevance is below it: what is
	// volunteered unasked must match well.
	MinLexical float64
}

// candidates is how many full-text hits are re-ranked per result wanted.
const candidates = 5

// Search finds the chunks of index that match q best: full-text hits
// first, re-ranked with s. ctxkeep.ErrEmptyQuery means q.Text has no word
// to search for.
func Search(ctx context.Context, index ctxkeep.ArchiveIndex, q Query, s Signals) ([]Result, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	hits, err := index.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: q.Text, Session: q.Session, Project: q.Project,
		Kind: q.Kind, Limit: max(limit*candidates, 50)})
	if err != nil {
		return nil, err
	}
	kept := hits[:0]
	for _, h := range hits {
		if !q.Skip[h.Key] && h.Lexical >= q.MinLexical && (!q.Conversation || h.Conversation()) {
			kept = append(kept, h)
		}
	}
	ranked, err := Rank(ctx, q.Text, kept, s)
	if err != nil {
		return nil, err
	}
	return ranked[:min(limit, len(ranked))], nil
}

// Rank orders hits for a query: phrase matches first, then by score.
func Rank(ctx context.Context, query string, hits []ctxkeep.ChunkHit, s Signals) ([]Result, error) {
	out := make([]Result, len(hits))
	best := 0.0
	for _, h := range hits {
		best = math.Max(best, h.Lexical)
	}
	semantic, err := meaning(ctx, query, hits, s.Embedder)
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	for _, f := range s.Files {
		files[f] = true
	}
	terms := queryTerms(query)
	turns := turnMass(hits, best)
	for i, h := range hits {
		lexical := 0.0
		if best > 0 {
			lexical = h.Lexical / best
		}
		score := wRecency*recency(h.End, s.Now) + wFiles*touches(h, files) + wCoverage*coverage(terms, h.Chunk) + wTurn*turns(h, lexical)
		if semantic != nil {
			score += (wLexical-wSemantic)*lexical + wSemantic*semantic[i]
		} else {
			score += wLexical * lexical
		}
		out[i] = Result{ChunkHit: h, Score: score}
	}
	// A chunk holding the query as a phrase (an exact line, an identifier)
	// is what was asked for: it goes first, whatever the rest says.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Phrase != out[j].Phrase {
			return out[i].Phrase
		}
		return out[i].Score > out[j].Score
	})
	return out, nil
}

// turnMass returns how much of a hit's turn, itself left out, matches
// the query, from 0 to 1: a step of the turn where the query's subject was
// worked on is likelier the one wanted than a lone step elsewhere that
// happens to use its words.
func turnMass(hits []ctxkeep.ChunkHit, best float64) func(h ctxkeep.ChunkHit, lexical float64) float64 {
	type turnOf struct {
		session string
		turn    int
	}
	mass := map[turnOf]float64{}
	most := 0.0
	for _, h := range hits {
		if best > 0 {
			k := turnOf{h.SessionID, h.Turn}
			mass[k] += h.Lexical / best
			most = max(most, mass[k])
		}
	}
	return func(h ctxkeep.ChunkHit, lexical float64) float64 {
		if most == 0 {
			return 0
		}
		return (mass[turnOf{h.SessionID, h.Turn}] - lexical) / most
	}
}

// recency is 1 for now, ½ a half-life ago, and so on.
func recency(t, now time.Time) float64 {
	if t.IsZero() || now.IsZero() {
		return 0
	}
	age := now.Sub(t)
	if age < 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

func touches(h ctxkeep.ChunkHit, files map[string]bool) float64 {
	for _, f := range h.Meta.Files() {
		if files[f] {
			return 1
		}
	}
	return 0
}

// meaning is the cosine similarity of each hit to the query, mapped to 0…1.
func meaning(ctx context.Context, query string, hits []ctxkeep.ChunkHit, e Embedder) ([]float64, error) {
	if e == nil || len(hits) == 0 {
		return nil, nil
	}
	texts := []string{query}
	for _, h := range hits {
		texts = append(texts, h.Prompt+"\n"+h.Summary+"\n"+h.Body)
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	out := make([]float64, len(hits))
	for i := range hits {
		out[i] = (cosine(vecs[0], vecs[i+1]) + 1) / 2
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
