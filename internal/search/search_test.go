package search

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

var (
	ctx = context.Background()
	now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
)

func hit(key string, bm25 float64, age time.Duration, files ...string) ctxkeep.ChunkHit {
	return ctxkeep.ChunkHit{Lexical: -bm25, Chunk: ctxkeep.Chunk{Key: key, End: now.Add(-age), Body: key,
		Meta: ctxkeep.Meta{FilesModified: files}}}
}

func keys(rs []Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Key)
	}
	return strings.Join(out, " ")
}

func TestRank(t *testing.T) {
	cases := []struct {
		name string
		hits []ctxkeep.ChunkHit
		want string
	}{
		{"words first: a much better match wins over a newer one",
			[]ctxkeep.ChunkHit{hit("new", -2, time.Hour), hit("old", -10, 60*24*time.Hour)}, "old new"},
		{"recency breaks a tie",
			[]ctxkeep.ChunkHit{hit("old", -5, 30*24*time.Hour), hit("new", -5, time.Hour)}, "new old"},
		{"the current files break a tie",
			[]ctxkeep.ChunkHit{hit("other", -5, time.Hour, "/p/b.go"), hit("mine", -5, time.Hour, "/p/a.go")}, "mine other"},
	}
	for _, c := range cases {
		got, err := Rank(ctx, "q", c.hits, Signals{Now: now, Files: []string{"/p/a.go"}})
		if err != nil {
			t.Fatal(err)
		}
		if keys(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, keys(got), c.want)
		}
		for _, r := range got {
			if r.Score < 0 || r.Score > 1 {
				t.Errorf("%s: score %v outside 0…1", c.name, r.Score)
			}
		}
	}
}

// cats is an embedder for the test: texts about cats point one way,
// everything else the other.
type cats struct{ vectors int }

func (c cats) Embed(_ context.Context, texts []string) ([][]float32, error) {
	var out [][]float32
	for _, t := range texts {
		if strings.Contains(t, "cat") || strings.Contains(t, "feline") {
			out = append(out, []float32{1, 0})
		} else {
			out = append(out, []float32{0, 1})
		}
	}
	if c.vectors > 0 {
		out = out[:c.vectors]
	}
	return out, nil
}

type failing struct{}

func (failing) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("model gone")
}

func TestRankWithAnEmbedder(t *testing.T) {
	hits := []ctxkeep.ChunkHit{hit("dog", -5, time.Hour), hit("cat", -5, time.Hour)}
	got, err := Rank(ctx, "feline", hits, Signals{Now: now, Embedder: cats{}})
	if err != nil {
		t.Fatal(err)
	}
	if keys(got) != "cat dog" {
		t.Errorf("with the embedder: %s, want the cat first", keys(got))
	}
	if _, err := Rank(ctx, "feline", hits, Signals{Embedder: cats{vectors: 2}}); err == nil {
		t.Error("an embedder returning too few vectors was not reported")
	}
	if _, err := Rank(ctx, "feline", hits, Signals{Embedder: failing{}}); err == nil {
		t.Error("an embedder's error was swallowed")
	}
}

// A hit holding the query as a phrase goes first, even against a better
// and newer scatter of its words.
func TestRankPhraseFirst(t *testing.T) {
	exact := hit("exact", -1, 30*24*time.Hour)
	exact.Phrase = true
	got, err := Rank(ctx, "5 tests, 4 failures", []ctxkeep.ChunkHit{hit("scatter", -10, time.Hour, "/p/a.go"), exact}, Signals{Now: now, Files: []string{"/p/a.go"}})
	if err != nil || keys(got) != "exact scatter" {
		t.Fatalf("got %s, %v; want the phrase first", keys(got), err)
	}
}

func TestSnippet(t *testing.T) {
	body := "→ Bash: go test ./...\n← error: Exit code 1\n" +
		"ok  \tpkg/a\t43 tests, 0 failures\n" +
		"\x1b[31m--- FAIL: TestRefund (0.00s)\x1b[0m\n" +
		"    refund_test.go:42: got 1999 want 2000\n" +
		"FAIL\tpkg/b\t5 tests, 4 failures\r\n" +
		strings.Repeat("noise line\n", 50)
	cases := []struct{ query, want string }{
		// The phrase is shown, not the first line with its words.
		{"5 tests, 4 failures", "FAIL pkg/b 5 tests, 4 failures"},
		// Colour codes are stripped; the lines with most words come, in order.
		{"TestRefund refund_test.go:42", "--- FAIL: TestRefund (0.00s)\nrefund_test.go:42: got 1999 want 2000"},
		{"zanzibar", ""},
	}
	for _, c := range cases {
		if got := Snippet([]string{body}, c.query); got != c.want {
			t.Errorf("Snippet(%q) = %q, want %q", c.query, got, c.want)
		}
	}
	// Every kind of control sequence (a window title, a hyperlink, a C1
	// CSI written in UTF-8, a progress line) is shown as a terminal
	// shows it.
	osc := "\x1b]0;go test\x07=== RUN   TestQuota\n" +
		"    \x1b]8;;file:///p/quota_test.go\x1b\\quota_test.go:7\x1b]8;;\x1b\\: \xc2\x9b1mquota\xc2\x9b0m exceeded by 3\n" +
		"[  ] 10%\r\x1b[32m[##] quota check done\x1b[0m\n"
	if got, want := Snippet([]string{osc}, "quota exceeded"), "quota_test.go:7: quota exceeded by 3"; got != want {
		t.Errorf("Snippet of control sequences = %q, want %q", got, want)
	}
	if got, want := Snippet([]string{osc}, "quota check done"), "[##] quota check done"; got != want {
		t.Errorf("Snippet of a progress line = %q, want %q", got, want)
	}
	long := strings.Repeat("x", 1000) + " needle " + strings.Repeat("y", 1000)
	if got := Snippet([]string{long}, "needle"); !strings.Contains(got, "needle") || len(got) > snippetLineLen+10 {
		t.Errorf("a long line is not cut around its match: %d bytes, %q", len(got), got)
	}
}

// A snippet is taken from the step's body and the outputs archive recorded
// for its calls, of its own session: never from an entry another session
// stored, whatever the chunk names.
func TestTextsAreTheStepsOwn(t *testing.T) {
	st := storetest.Local(t, t.TempDir())
	put := func(session, call, text string) ctxkeep.Entry {
		e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: swap.EntryID(session, call), SessionID: session, ToolUseID: call, Tool: "Bash"}, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	theirs, ours := put("session-b", "toolu_b", "B's secret line"), put("session-a", "toolu_a", "A's line")
	c := ctxkeep.Chunk{SessionID: "session-a", Body: "body", Meta: ctxkeep.Meta{Entries: []string{theirs.ID, ours.ID}}}
	if got := strings.Join(Texts(ctx, st, c), "|"); got != "body|A's line" {
		t.Errorf("Texts = %q", got)
	}
}

// A snippet comes from the exact stored outputs too: it shows none of the
// secrets they hold, whether the query names a word beside one or the
// secret itself (a PEM block's body line is redacted with its block).
func TestSnippetRedacts(t *testing.T) {
	for _, f := range redacttest.Corpus() {
		output := strings.Repeat("noise line\n", 20) + "canary line: " + f.Text + "\nafter\n"
		for _, query := range []string{"canary", f.Secret, strings.SplitN(f.Secret, "\n", 2)[0]} {
			got := Snippet([]string{"→ Bash: cat creds", output}, query)
			if strings.Contains(got, f.Secret) || strings.Contains(got, strings.SplitN(f.Secret, "\n", 2)[0]) {
				t.Errorf("%s: Snippet(%.40q) = %q", f.Name, query, got)
			}
		}
	}
}
