package keep

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// BenchmarkLocomoTried measures, on LoCoMo as TestLocomoRecall archives
// it, the lexical means issue 23 asked to try on top of `ctxkeep search`,
// each against the ranking as it is (docs/KEEP.md, "what was tried"):
// a larger candidate pool, the neighbours of a hit, pseudo-relevance
// feedback (RM3) re-ranking the candidates or searching again with the
// expanded query, and the share of the question's words the whole step
// holds and holds in order (proximity). It is a benchmark so that it runs
// only when asked (minutes; -v, or its log is cut after ten lines):
//
//	go test -run '^$' -bench LocomoTried -benchtime 1x -timeout 1h -v ./internal/keep
func BenchmarkLocomoTried(b *testing.B) {
	st := newStore(b)
	ds, dia := loadLocomo(b, st)
	type question struct {
		text     string
		session  string
		category int
		evidence []string
		pool     []ctxkeep.ChunkHit // the first 200 full-text hits
	}
	var qs []question
	for _, conv := range ds {
		for _, q := range conv.QA {
			if len(q.Evidence) == 0 {
				continue
			}
			hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: q.Question, Session: conv.SampleID, Limit: 200})
			if err != nil {
				continue
			}
			qs = append(qs, question{q.Question, conv.SampleID, q.Category, q.Evidence, hits})
		}
	}
	type variant struct {
		name string
		rank func(q question) []string // the keys of the top 10
	}
	top := func(rs []search.Result) []string {
		var keys []string
		for _, r := range rs[:min(10, len(rs))] {
			keys = append(keys, r.Key)
		}
		return keys
	}
	ranked := func(q question, pool int) []search.Result {
		rs, _ := search.Rank(ctx, q.text, q.pool[:min(pool, len(q.pool))], search.Signals{})
		return rs
	}
	variants := []variant{{"ctxkeep search as it is (50 candidates)", func(q question) []string { return top(ranked(q, 50)) }}}
	variants = append(variants, variant{"200 candidates", func(q question) []string { return top(ranked(q, 200)) }})
	for _, w := range []float64{0.1, 0.3} {
		variants = append(variants, variant{"neighbours of a hit, weight " + ftoa(w), func(q question) []string {
			return byScore(neighbours(ranked(q, 50), w))
		}})
	}
	for _, lambda := range []float64{0.7, 0.85} {
		variants = append(variants, variant{"RM3 re-ranking the candidates, 5 feedback steps, 5 terms, λ " + ftoa(lambda), func(q question) []string {
			rs := ranked(q, 50)
			return byScore(mix(rs, rerank(rs, expansion(q.text, rs, 5, 5)), lambda))
		}})
	}
	for _, c := range []struct {
		k, m   int
		lambda float64
	}{{3, 5, 0.7}, {5, 10, 0.5}, {5, 5, 0.85}} {
		variants = append(variants, variant{"RM3 searching again, " + itoa(c.k) + " feedback steps, " + itoa(c.m) + " terms, λ " + ftoa(c.lambda), func(q question) []string {
			rs := ranked(q, 50)
			more := q.text + " " + strings.Join(expansion(q.text, rs, c.k, c.m), " ")
			hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: more, Session: q.session, Limit: 50})
			if err != nil {
				return top(rs)
			}
			again, _ := search.Rank(ctx, more, hits, search.Signals{})
			return byScore(mix(rs, again, c.lambda))
		}})
	}
	variants = append(variants, variant{"the whole step's share of the question's words and their order, weight 0.2", func(q question) []string {
		rs := ranked(q, 50)
		terms := stems(q.text, true)
		for i := range rs {
			rs[i].Score += 0.2 * (covers(terms, rs[i].Chunk) + inOrder(terms, rs[i].Chunk))
		}
		return byScore(rs)
	}})
	b.ResetTimer()
	for range b.N {
		for _, v := range variants {
			var r recall
			for _, q := range qs {
				var ids []string
				for _, k := range v.rank(q) {
					ids = append(ids, dia[k])
				}
				r.add(q.category, q.evidence, ids)
			}
			b.Logf("%-100s %s", v.name, r)
		}
	}
	b.ReportMetric(0, "ns/op")
}

// byScore is the keys of the ten results scoring best, phrase matches
// first as search has them.
func byScore(rs []search.Result) []string {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Phrase != rs[j].Phrase {
			return rs[i].Phrase
		}
		return rs[i].Score > rs[j].Score
	})
	var keys []string
	for _, r := range rs[:min(10, len(rs))] {
		keys = append(keys, r.Key)
	}
	return keys
}

// neighbours adds to each result w times the best score of the steps
// beside it in its turn.
func neighbours(rs []search.Result, w float64) []search.Result {
	type at struct {
		session    string
		turn, step int
	}
	score := map[at]float64{}
	for _, r := range rs {
		score[at{r.SessionID, r.Turn, r.Step}] = r.Score
	}
	out := make([]search.Result, len(rs))
	for i, r := range rs {
		out[i] = r
		out[i].Score += w * max(score[at{r.SessionID, r.Turn, r.Step - 1}], score[at{r.SessionID, r.Turn, r.Step + 1}])
	}
	return out
}

// expansion is RM3's expansion terms: the m words weighing most in the
// first k results, each result's words by their share of it times its
// score, times their rarity among the results; the query's own words
// aside.
func expansion(query string, rs []search.Result, k, m int) []string {
	in := map[string]bool{}
	for _, w := range stems(query, false) {
		in[w] = true
	}
	df := map[string]float64{}
	for _, r := range rs {
		for w := range counts(r.Chunk) {
			df[w]++
		}
	}
	weight := map[string]float64{}
	for _, r := range rs[:min(k, len(rs))] {
		tf, n := counts(r.Chunk), 0.0
		for _, c := range tf {
			n += c
		}
		for w, c := range tf {
			if !in[stem(w)] {
				weight[w] += r.Score * c / n * math.Log(1+float64(len(rs))/df[w])
			}
		}
	}
	words := make([]string, 0, len(weight))
	for w := range weight {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		return weight[words[i]] > weight[words[j]] || weight[words[i]] == weight[words[j]] && words[i] < words[j]
	})
	return words[:min(m, len(words))]
}

// rerank scores each result by BM25 over the results for the terms alone,
// 0…1.
func rerank(rs []search.Result, terms []string) []search.Result {
	df, length, total := map[string]float64{}, map[string]float64{}, 0.0
	tfs := make([]map[string]float64, len(rs))
	for i, r := range rs {
		tfs[i] = counts(r.Chunk)
		for w, c := range tfs[i] {
			df[w]++
			length[r.Key] += c
		}
		total += length[r.Key]
	}
	n, avg := float64(len(rs)), total/float64(max(1, len(rs)))
	out := make([]search.Result, len(rs))
	best := 0.0
	for i, r := range rs {
		out[i] = r
		out[i].Score = 0
		for _, w := range terms {
			if f := tfs[i][w]; f > 0 {
				idf := math.Log(1 + (n-df[w]+0.5)/(df[w]+0.5))
				out[i].Score += idf * f * 2.2 / (f + 1.2*(0.25+0.75*length[r.Key]/avg))
			}
		}
		best = max(best, out[i].Score)
	}
	for i := range out {
		if best > 0 {
			out[i].Score /= best
		}
	}
	return out
}

// mix is λ times the first ranking's score plus 1-λ times the second's,
// over the results of either.
func mix(first, second []search.Result, lambda float64) []search.Result {
	at := map[string]int{}
	var out []search.Result
	for _, r := range first {
		at[r.Key] = len(out)
		r.Score *= lambda
		out = append(out, r)
	}
	for _, r := range second {
		i, ok := at[r.Key]
		if !ok {
			i = len(out)
			at[r.Key] = i
			r.Score, r.Phrase = 0, false
			out = append(out, r)
		}
		out[i].Score += (1 - lambda) * r.Score
	}
	return out
}

// counted memoizes counts: the same steps are candidates of many
// questions and variants.
var counted = map[string]map[string]float64{}

// counts are a chunk's words (common ones, one-letter ones and numbers
// aside) with how often each occurs.
func counts(c ctxkeep.Chunk) map[string]float64 {
	if tf, ok := counted[c.Key]; ok {
		return tf
	}
	tf := map[string]float64{}
	defer func() { counted[c.Key] = tf }()
	for _, w := range text.Tokens(c.Prompt + "\n" + c.Body) {
		if len(w) > 2 && !text.Stopword(w) && (w[0] < '0' || w[0] > '9') {
			tf[w]++
		}
	}
	return tf
}

// stems are the words of s, with the endings the index's stemmer takes
// off taken off; terms keeps only the words search counts (no common
// ones), once each.
func stems(s string, terms bool) []string {
	var out []string
	for _, w := range text.Tokens(s) {
		if terms && (len(w) < 2 || text.Stopword(w)) {
			continue
		}
		if w = stem(w); !terms || !contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func stem(s string) string {
	for _, suf := range []string{"ing", "es", "ed", "s"} {
		if len(s) > len(suf)+2 && strings.HasSuffix(s, suf) {
			return s[:len(s)-len(suf)]
		}
	}
	return s
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// covers is the share of terms the whole step holds.
func covers(terms []string, c ctxkeep.Chunk) float64 {
	words := stems(c.Prompt+"\n"+c.Body, false)
	n := 0
	for _, t := range terms {
		if contains(words, t) {
			n++
		}
	}
	return float64(n) / float64(max(1, len(terms)))
}

// inOrder is the share of the pairs of consecutive terms the step holds
// next to each other or one word apart.
func inOrder(terms []string, c ctxkeep.Chunk) float64 {
	words := stems(c.Prompt+"\n"+c.Body, false)
	pairs, found := 0, 0
	for k := 0; k+1 < len(terms); k++ {
		pairs++
		for j := 0; j+1 < len(words); j++ {
			if words[j] == terms[k] && (words[j+1] == terms[k+1] || j+2 < len(words) && words[j+2] == terms[k+1]) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(max(1, pairs))
}

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
