package sqlite

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// files lists the index's files with their SHA-256, leaving out the
// shared-memory file: SQLite's scratch space (read marks, the WAL's
// index), which holds no data and which any reader writes to.
func files(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		if strings.HasSuffix(e.Name(), "-shm") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s %x\n", e.Name(), sha256.Sum256(data))
	}
	return b.String()
}

// Reading through OpenReadOnly leaves the database and its WAL byte for
// byte as they were, whether a WAL is pending or not.
func TestOpenReadOnlyChangesNoByte(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	db, err := OpenMigrate(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AddBlob(ctx, ctxkeep.Blob{Hash: ctxkeep.Sum([]byte("x")), Size: 1, Stored: 10}, time.Now(), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	read := func(state string) {
		before := files(t, dir)
		ro, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := ro.StoredBytes(ctx); err != nil || n != 10 {
			t.Fatalf("%s: read %d, %v", state, n, err)
		}
		ro.Close()
		if after := files(t, dir); after != before {
			t.Fatalf("%s: files changed:\n%s\n%s", state, before, after)
		}
	}
	read("WAL pending") // db is still open: its WAL holds the row
	db.Close()          // checkpoints, removes the WAL
	read("no WAL")
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		t.Fatal("a WAL was created")
	}
}
