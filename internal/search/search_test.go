package search

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
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
