package blob

import (
	"bytes"
	"fmt"
	"testing"
)

// buildLog is a 64 KB output shaped like a build log: compressible, not trivially.
func buildLog(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.%02ds)\n", i, i, i%100)
	}
	return b.Bytes()[:n]
}

func BenchmarkPut64K(b *testing.B) {
	s := New(b.TempDir())
	base := buildLog(64 << 10)
	b.SetBytes(int64(len(base)))
	for i := range b.N {
		data := append([]byte(fmt.Sprintf("%d\n", i)), base...) // a new blob each time
		if _, _, err := s.Put(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet64K(b *testing.B) {
	s := New(b.TempDir())
	info, _, _ := s.Put(buildLog(64 << 10))
	b.SetBytes(info.Size)
	for range b.N {
		if _, err := s.Get(info.Hash); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCompressionRatio(t *testing.T) {
	s := New(t.TempDir())
	info, _, err := s.Put(buildLog(64 << 10))
	if err != nil {
		t.Fatal(err)
	}
	if info.Stored*4 > info.Size {
		t.Fatalf("a build log stored %d bytes for %d: compression is not working", info.Stored, info.Size)
	}
}
