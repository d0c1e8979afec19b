package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/blob"
	"github.com/ctxkeep/ctxkeep/internal/sqlite"
)

var ctx = context.Background()

func open(t testing.TB, dir string) *Store {
	t.Helper()
	db, err := sqlite.OpenMigrate(ctx, filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return New(blob.New(filepath.Join(dir, "blobs")), db)
}

func TestPutGetRemove(t *testing.T) {
	s := open(t, t.TempDir())
	data := []byte("exact output\x00\xff")
	info, err := s.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, info.Hash)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get: %v", err)
	}
	if err := s.Remove(ctx, info.Hash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, info.Hash); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("after Remove: %v", err)
	}
	if _, err := os.Stat(s.Blobs.Path(info.Hash)); !os.IsNotExist(err) {
		t.Fatalf("blob file still there: %v", err)
	}
}

func TestGetNeedsRow(t *testing.T) {
	s := open(t, t.TempDir())
	info, _, _ := s.Blobs.Put([]byte("garbage blob, no row"))
	if _, err := s.Get(ctx, info.Hash); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckFindsEachProblem(t *testing.T) {
	s := open(t, t.TempDir())
	good, _ := s.Put(ctx, []byte("good"))
	missing, _ := s.Put(ctx, []byte("missing"))
	corrupt, _ := s.Put(ctx, []byte("corrupt"))
	orphan, _, _ := s.Blobs.Put([]byte("orphan"))
	os.Remove(s.Blobs.Path(missing.Hash))
	os.WriteFile(s.Blobs.Path(corrupt.Hash), []byte("bad"), 0o600)

	r, err := s.Check(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || r.Rows != 3 || r.Blobs != 3 ||
		!equal(r.Missing, missing.Hash) || !equal(r.Corrupt, corrupt.Hash) || !equal(r.Unreferenced, orphan.Hash) {
		t.Fatalf("report = %+v (good %s)", r, good.Hash)
	}
	shallow, _ := s.Check(ctx, false)
	if len(shallow.Corrupt) != 0 || !equal(shallow.Missing, missing.Hash) {
		t.Fatalf("shallow report = %+v", shallow)
	}
}

func equal(hs []blob.Hash, h blob.Hash) bool { return len(hs) == 1 && hs[0] == h }

// TestCrashDuringPuts kills writer processes with SIGKILL at random moments,
// many times, then checks that no row lacks its blob and no blob on disk
// serves bytes other than its own.
func TestCrashDuringPuts(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills many processes")
	}
	dir := t.TempDir()
	open(t, dir) // migrate once, as install does
	rng := mrand.New(mrand.NewPCG(1, 2))
	kills := 0
	for i := range 40 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashWriter$")
		cmd.Env = append(os.Environ(), "CTXKEEP_CRASH_DIR="+dir)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(80)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err == nil {
			kills++
		}
		cmd.Wait()
		if i%10 == 9 {
			assertIntact(t, dir)
		}
	}
	if kills < 30 {
		t.Fatalf("only %d writers were killed mid-run", kills)
	}
	r := assertIntact(t, dir)
	if r.Rows < 20 {
		t.Fatalf("only %d rows written: the writers did not get going", r.Rows)
	}
	t.Logf("%d kills, %d rows, %d blobs, %d garbage blobs", kills, r.Rows, r.Blobs, len(r.Unreferenced))
}

func assertIntact(t *testing.T, dir string) Report {
	t.Helper()
	s := open(t, dir)
	r, err := s.Check(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("integrity: %d rows without blob, %d corrupt, index %v", len(r.Missing), len(r.Corrupt), r.IndexProblems)
	}
	// Garbage blobs are never served wrong either: intact or ErrCorrupt.
	for _, h := range r.Unreferenced {
		if data, err := s.Blobs.Get(h); err == nil && blob.Sum(data) != h {
			t.Fatalf("blob %s served bytes hashing to %s", h, blob.Sum(data))
		}
	}
	return r
}

// TestCrashWriter is the child of TestCrashDuringPuts: it puts and removes
// blobs until it is killed.
func TestCrashWriter(t *testing.T) {
	dir := os.Getenv("CTXKEEP_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestCrashDuringPuts")
	}
	db, err := sqlite.Open(filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(blob.New(filepath.Join(dir, "blobs")), db)
	var put []blob.Hash
	for i := 0; ; i++ {
		if i%5 == 4 && len(put) > 0 {
			h := put[mrand.IntN(len(put))]
			if err := s.Remove(ctx, h); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data := make([]byte, 1+mrand.IntN(512<<10))
		rand.Read(data[:len(data)/4]) // part random, part compressible
		info, err := s.Put(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		put = append(put, info.Hash)
	}
}
