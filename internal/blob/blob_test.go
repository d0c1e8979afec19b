package blob

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

func TestPutGetExact(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "blobs"))
	for _, data := range [][]byte{
		{},
		[]byte("hello\n"),
		bytes.Repeat([]byte("FAIL: TestX\n"), 10000),
		randomBytes(t, 1<<20),
		[]byte("\xff\xfe invalid utf-8 \x00 nul"),
	} {
		info, created, err := s.Put(data)
		if err != nil || !created {
			t.Fatalf("Put: created=%v err=%v", created, err)
		}
		if info.Hash != ctxkeep.Sum(data) || info.Size != int64(len(data)) || info.Stored <= 0 {
			t.Errorf("info = %+v", info)
		}
		got, err := s.Get(info.Hash)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Get: %v, equal=%v", err, bytes.Equal(got, data))
		}
		if _, created, err := s.Put(data); err != nil || created {
			t.Errorf("second Put: created=%v err=%v, want deduplicated", created, err)
		}
	}
}

func TestPrivatePermissions(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "blobs"))
	info, _, err := s.Put([]byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(s.Path(info.Hash))
	dir, _ := os.Stat(filepath.Dir(s.Path(info.Hash)))
	if st.Mode().Perm() != 0o600 || dir.Mode().Perm() != 0o700 {
		t.Errorf("modes: file %v dir %v", st.Mode().Perm(), dir.Mode().Perm())
	}
}

func TestCorruptBlobIsReportedNeverServed(t *testing.T) {
	s := New(t.TempDir())
	data := bytes.Repeat([]byte("exact bytes matter "), 500)
	info, _, _ := s.Put(data)
	path := s.Path(info.Hash)
	packed, _ := os.ReadFile(path)

	corruptions := map[string][]byte{
		"truncated": packed[:len(packed)/2],
		"empty":     {},
		"garbage":   []byte("not zstd at all"),
	}
	for name, bad := range corruptions {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(path, bad, 0o600)
			got, err := s.Get(info.Hash)
			if !errors.Is(err, ctxkeep.ErrCorrupt) || got != nil {
				t.Fatalf("Get = %d bytes, %v; want ctxkeep.ErrCorrupt and nothing", len(got), err)
			}
		})
	}
	t.Run("valid frame of other content", func(t *testing.T) {
		os.WriteFile(path, encoder().EncodeAll([]byte("other content"), nil), 0o600)
		if _, err := s.Get(info.Hash); !errors.Is(err, ctxkeep.ErrCorrupt) {
			t.Fatalf("err = %v, want ctxkeep.ErrCorrupt", err)
		}
	})
	t.Run("put heals", func(t *testing.T) {
		if _, created, err := s.Put(data); err != nil || !created {
			t.Fatalf("Put over corrupt copy: created=%v err=%v", created, err)
		}
		if got, err := s.Get(info.Hash); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("after heal: %v", err)
		}
	})
}

func TestNotFound(t *testing.T) {
	s := New(t.TempDir())
	if _, err := s.Get(ctxkeep.Sum([]byte("x"))); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if err := s.Remove(ctxkeep.Sum([]byte("x"))); err != nil {
		t.Fatalf("Remove of missing blob: %v", err)
	}
}

func TestConcurrentPutsOfSameBlob(t *testing.T) {
	s := New(t.TempDir())
	data := randomBytes(t, 256<<10)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := s.Put(data); err != nil {
				errs <- err
			}
			if got, err := s.Get(ctxkeep.Sum(data)); err != nil || !bytes.Equal(got, data) {
				errs <- errors.Join(err, errors.New("read back differs"))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	s.Walk(func(ctxkeep.Hash, int64) error { n++; return nil })
	if n != 1 {
		t.Errorf("Walk found %d blobs, want 1", n)
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Path(ctxkeep.Sum(data))))
	if len(entries) != 1 {
		t.Errorf("fan-out folder holds %d files, want 1 (no temp files left)", len(entries))
	}
}

func TestWalkSkipsTempFiles(t *testing.T) {
	s := New(t.TempDir())
	info, _, _ := s.Put([]byte("a"))
	os.WriteFile(s.Path(info.Hash)+".tmp-123", []byte("x"), 0o600)
	os.WriteFile(filepath.Join(s.Dir(), "README"), []byte("x"), 0o600)
	var got []ctxkeep.Hash
	s.Walk(func(h ctxkeep.Hash, _ int64) error { got = append(got, h); return nil })
	if len(got) != 1 || got[0] != info.Hash {
		t.Errorf("Walk = %v", got)
	}
}

func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}
