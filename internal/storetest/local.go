package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/store"
)

// Local opens (creating and migrating) the local store in dir, as the CLI
// does, closed when the test ends.
func Local(t testing.TB, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "index.db"), filepath.Join(dir, "blobs"), store.Migrate, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
