package keep

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

var locomoPath = realdata.Path("locomo/locomo10.json")

type locomo []struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

type dialogTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

// LoCoMo's conversations are archived the way ctxkeep archives a
// session: each LoCoMo session (a dated conversation) is a turn, each
// utterance a step of it, dated by its session. A step is indexed with
// what led to it — the two utterances before it — and the one after (the
// reply), in its body; the utterance itself weighs as a prompt.
const locomoBefore, locomoAfter = 2, 1

// locomoStep is an utterance as the tests index it.
type locomoStep struct {
	diaID           string
	turn, step      int
	at              time.Time
	prompt, context string
}

// locomoSteps cuts a LoCoMo conversation into steps.
func locomoSteps(t testing.TB, conv map[string]json.RawMessage) []locomoStep {
	var out []locomoStep
	for n := 1; ; n++ {
		raw, ok := conv[fmt.Sprintf("session_%d", n)]
		if !ok {
			return out
		}
		var turns []dialogTurn
		json.Unmarshal(raw, &turns)
		var when string
		json.Unmarshal(conv[fmt.Sprintf("session_%d_date_time", n)], &when)
		at, err := time.Parse("3:04 pm on 2 January, 2006", when)
		if err != nil {
			t.Fatalf("session %d: %v", n, err)
		}
		for k, d := range turns {
			var around []string
			for j := max(0, k-locomoBefore); j < min(len(turns), k+locomoAfter+1); j++ {
				if j != k {
					around = append(around, utterance(turns[j]))
				}
			}
			out = append(out, locomoStep{diaID: d.DiaID, turn: n, step: k + 1, at: at, prompt: utterance(d), context: strings.Join(around, "\n")})
		}
	}
}

// loadLocomo archives every utterance of LoCoMo as a step of its
// conversation's session and returns the dataset, and the dia_id of each
// step key.
func loadLocomo(t testing.TB, st *store.Store) (locomo, map[string]string) {
	data, err := os.ReadFile(locomoPath)
	if err != nil {
		realdata.Missing(t, "LoCoMo not found: %v", err)
	}
	var ds locomo
	if err := json.Unmarshal(data, &ds); err != nil {
		t.Fatal(err)
	}
	dia := map[string]string{}
	for _, conv := range ds {
		var chunks []ctxkeep.Chunk
		for _, s := range locomoSteps(t, conv.Conversation) {
			k := archive.StepKey(conv.SampleID, s.turn, s.step)
			chunks = append(chunks, ctxkeep.Chunk{Key: k, SessionID: conv.SampleID, Project: "locomo", Kind: ctxkeep.KindStep,
				Turn: s.turn, Step: s.step, Start: s.at, End: s.at, Prompt: s.prompt, Body: s.context})
			dia[k] = s.diaID
		}
		if _, err := st.SaveChunks(ctx, conv.SampleID, chunks, ctxkeep.ArchiveCursor{Transcript: "locomo"}); err != nil {
			t.Fatal(err)
		}
	}
	return ds, dia
}

// recall is evidence recall@k, averaged over the questions, overall and
// without the adversarial category 5 (whose answers are not in the
// conversation).
type recall struct{ at5, at10, n, at5No5, at10No5, nNo5 float64 }

func (r recall) String() string {
	return fmt.Sprintf("R@5 %.3f, R@10 %.3f over %d questions; without category 5: R@5 %.3f, R@10 %.3f over %d",
		r.at5/r.n, r.at10/r.n, int(r.n), r.at5No5/r.nNo5, r.at10No5/r.nNo5, int(r.nNo5))
}

func (r *recall) add(category int, evidence []string, ranked []string) {
	hit := func(k int) float64 {
		top := map[string]bool{}
		for _, d := range ranked[:min(k, len(ranked))] {
			top[d] = true
		}
		n := 0
		for _, e := range evidence {
			if top[e] {
				n++
			}
		}
		return float64(n) / float64(len(evidence))
	}
	r.at5, r.at10, r.n = r.at5+hit(5), r.at10+hit(10), r.n+1
	if category != 5 {
		r.at5No5, r.at10No5, r.nNo5 = r.at5No5+hit(5), r.at10No5+hit(10), r.nNo5+1
	}
}

// TestLocomoRecall measures `ctxkeep search` on LoCoMo at turn level, the
// way BENCHMARKS.md reports it, and checks it stays well clear of broken.
func TestLocomoRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 5,882 turns and runs 1,982 searches")
	}
	st := newStore(t)
	ds, dia := loadLocomo(t, st)
	if raceEnabled {
		ds = ds[:2] // the first two conversations, 302 questions with evidence
	}
	var ours recall
	for _, conv := range ds {
		for _, q := range conv.QA {
			if len(q.Evidence) == 0 {
				continue
			}
			ranked, err := search.Search(ctx, st, search.Query{Text: q.Question, Session: conv.SampleID, Limit: 10}, search.Signals{})
			if err != nil && err != ctxkeep.ErrEmptyQuery {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range ranked {
				ids = append(ids, dia[r.Key])
			}
			ours.add(q.Category, q.Evidence, ids)
		}
	}
	t.Logf("ctxkeep search: %s", ours)
	if ours.at10/ours.n < 0.5 {
		t.Errorf("recall@10 %.3f: search is broken", ours.at10/ours.n)
	}
	plain := plainBM25(t, ds, false)
	t.Logf("plain BM25 over the utterances (unicode61, no stemming, no stopwords): %s", plain)
	same := plainBM25(t, ds, true)
	t.Logf("plain BM25 over the same documents (utterance, context and date as indexed): %s", same)
	if ours.at5 <= same.at5 || ours.at5 <= plain.at5 {
		t.Errorf("recall@5 %.3f does not beat plain BM25's %.3f and %.3f", ours.at5/ours.n, plain.at5/plain.n, same.at5/same.n)
	}
	if !raceEnabled && ours.at5/ours.n < 0.70 {
		t.Errorf("recall@5 %.3f, below the 0.70 the issue asks for", ours.at5/ours.n)
	}
}

// plainBM25 is the baseline: textbook BM25 (k1 1.2, b 0.75), lowercased
// words, no stemming, no stopwords, over each utterance alone or, with
// same, over the documents ctxkeep indexes (the utterance, its context
// and its date).
func plainBM25(t *testing.T, ds locomo, same bool) recall {
	var r recall
	for _, conv := range ds {
		docs := map[string]string{}
		for _, s := range locomoSteps(t, conv.Conversation) {
			docs[s.diaID] = s.prompt
			if same {
				docs[s.diaID] += "\n" + s.context + "\n" + s.at.Format("January 2006")
			}
		}
		index := newBM25(docs)
		for _, q := range conv.QA {
			if len(q.Evidence) == 0 {
				continue
			}
			r.add(q.Category, q.Evidence, index.rank(q.Question, 10))
		}
	}
	return r
}

func utterance(d dialogTurn) string {
	text := d.Speaker + ": " + d.Text
	if d.Caption != "" {
		text += " [shares an image: " + d.Caption + "]"
	}
	return text
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
}

// bm25 is a textbook BM25 index (k1 1.2, b 0.75) over a few documents.
type bm25 struct {
	tf     map[string]map[string]int
	length map[string]int
	df     map[string]int
	avg    float64
}

func newBM25(docs map[string]string) *bm25 {
	x := &bm25{tf: map[string]map[string]int{}, length: map[string]int{}, df: map[string]int{}}
	total := 0
	for id, text := range docs {
		x.tf[id] = map[string]int{}
		for _, w := range words(text) {
			if x.tf[id][w] == 0 {
				x.df[w]++
			}
			x.tf[id][w]++
			x.length[id]++
			total++
		}
	}
	x.avg = float64(total) / float64(len(docs))
	return x
}

// rank returns the ids of the k docs scoring best for query.
func (x *bm25) rank(query string, k int) []string {
	const k1, b = 1.2, 0.75
	n := float64(len(x.tf))
	type scored struct {
		id    string
		score float64
	}
	var out []scored
	for id, counts := range x.tf {
		score := 0.0
		for _, w := range words(query) {
			f := float64(counts[w])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(x.df[w])+0.5)/(float64(x.df[w])+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(x.length[id])/x.avg))
		}
		if score > 0 {
			out = append(out, scored{id, score})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].score > out[j].score || out[i].score == out[j].score && out[i].id < out[j].id
	})
	var ids []string
	for _, s := range out[:min(k, len(out))] {
		ids = append(ids, s.id)
	}
	return ids
}
