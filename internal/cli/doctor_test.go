package cli

import (
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// doctor names every kind of problem the store check found, not only
// missing blobs.
func TestProblemsOf(t *testing.T) {
	r := store.Report{Missing: []ctxkeep.Hash{"a"}, Dangling: []string{"e1", "e2"}, FTSProblems: []string{"chunks_fts: malformed"}}
	want := "1 rows without their blob, 2 entries whose blob has no row, full-text index: chunks_fts: malformed"
	if got := problemsOf(r); got != want {
		t.Errorf("problemsOf = %q, want %q", got, want)
	}
}
