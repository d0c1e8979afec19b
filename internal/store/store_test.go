package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

var ctx = context.Background()

func open(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(ctx, filepath.Join(dir, "index.db"), filepath.Join(dir, "blobs"), Migrate, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var nextID atomic.Int64

// put stores data as a new entry of session "s".
func put(t testing.TB, s *Store, data []byte) ctxkeep.Entry {
	t.Helper()
	e, err := s.PutEntry(ctx, ctxkeep.Entry{ID: fmt.Sprintf("%012x", nextID.Add(1)), SessionID: "s", Tool: "Bash"}, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPutOpenRemove(t *testing.T) {
	s := open(t, t.TempDir())
	data := []byte("exact output\x00\xff")
	e := put(t, s, data)
	if e.Hash != ctxkeep.Sum(data) || e.CreatedAt.IsZero() {
		t.Fatalf("PutEntry = %+v", e)
	}
	got, err := s.Open(ctx, e.Hash)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Open: %v", err)
	}
	twin := put(t, s, data) // the same bytes again: one blob, two entries
	if rm, err := s.Remove(ctx, []ctxkeep.Entry{e}); err != nil || len(rm.Entries) != 1 || len(rm.Freed) != 0 {
		t.Fatalf("Remove of one of two entries sharing a blob = %+v, %v", rm, err)
	}
	if _, err := s.Open(ctx, e.Hash); err != nil {
		t.Fatalf("the blob went with the first of its two entries: %v", err)
	}
	if rm, err := s.Remove(ctx, []ctxkeep.Entry{twin}); err != nil || len(rm.Freed) != 1 {
		t.Fatalf("Remove of the last entry = %+v, %v", rm, err)
	}
	if _, err := s.Open(ctx, e.Hash); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Fatalf("after Remove: %v", err)
	}
	if _, err := os.Stat(s.blobs.Path(e.Hash)); !os.IsNotExist(err) {
		t.Fatalf("blob file still there: %v", err)
	}
	if rm, err := s.Remove(ctx, []ctxkeep.Entry{twin}); err != nil || len(rm.Entries) != 0 {
		t.Fatalf("removing again = %+v, %v; want nothing, no error", rm, err)
	}
}

func equal(hs []ctxkeep.Hash, h ctxkeep.Hash) bool { return len(hs) == 1 && hs[0] == h }

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
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it at a random moment once it is writing: its first entry
		// is committed (it says so), so that a busy machine cannot turn
		// the test into one of processes killed before they started.
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "writing\n" {
			t.Fatalf("writer %d did not start: %q, %v", i, line, err)
		}
		time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
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
		if data, err := s.blobs.Get(h); err == nil && ctxkeep.Sum(data) != h {
			t.Fatalf("blob %s served bytes hashing to %s", h, ctxkeep.Sum(data))
		}
	}
	return r
}

// TestCrashWriter is the child of TestCrashDuringPuts: it stores and
// removes entries through the door production uses, until it is killed.
// One put in four repeats bytes stored before, so that puts find their
// blob already there while removals free it (the dedup race).
func TestCrashWriter(t *testing.T) {
	dir := os.Getenv("CTXKEEP_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestCrashDuringPuts")
	}
	s, err := Open(ctx, filepath.Join(dir, "index.db"), filepath.Join(dir, "blobs"), Existing, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var stored []ctxkeep.Entry
	var seen [][]byte
	for i := 0; ; i++ {
		if i%5 == 4 && len(stored) > 0 {
			k := mrand.IntN(len(stored))
			if _, err := s.Remove(ctx, stored[k:k+1]); err != nil {
				t.Fatal(err)
			}
			stored = append(stored[:k], stored[k+1:]...)
			continue
		}
		var data []byte
		if i%4 == 3 && len(seen) > 0 {
			data = seen[mrand.IntN(len(seen))]
		} else {
			data = make([]byte, 1+mrand.IntN(512<<10))
			rand.Read(data[:len(data)/4]) // part random, part compressible
			seen = append(seen[max(0, len(seen)-8):], data)
		}
		id := fmt.Sprintf("%06x%06x", os.Getpid()&0xffffff, i)
		e, err := s.PutEntry(ctx, ctxkeep.Entry{ID: id, SessionID: "crash", Tool: "Bash"}, data)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, e)
		if i == 0 {
			os.Stdout.WriteString("writing\n") // the parent kills us from now on
		}
	}
}

// TestConcurrentPutsOfTheSameBytes races writers storing the same bytes
// under new ids against a remover taking the entries as they come: the
// blob is freed and stored again many times over. Whatever the order,
// every entry left must open, and no row may lack its blob.
func TestConcurrentPutsOfTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	data := bytes.Repeat([]byte("the same build log\n"), 4000)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				id := fmt.Sprintf("%02x%010x", w, i)
				if _, err := s.PutEntry(ctx, ctxkeep.Entry{ID: id, SessionID: "s", Tool: "Bash"}, data); err != nil && !errors.Is(err, ctxkeep.ErrNotFound) {
					errs <- err // ErrNotFound: the blob was freed under it; the hook fails open
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 60 {
			es, err := s.Entries(ctx, ctxkeep.EntryFilter{})
			if err == nil {
				_, err = s.Remove(ctx, es[:min(2, len(es))])
			}
			if err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	es, _ := s.Entries(ctx, ctxkeep.EntryFilter{})
	for _, e := range es {
		if got, err := s.Open(ctx, e.Hash); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("entry %s left without its bytes: %v", e.ID, err)
		}
	}
	if r, err := s.Check(ctx, true); err != nil || !r.OK() {
		t.Fatalf("check: %+v, %v", r, err)
	}
}
