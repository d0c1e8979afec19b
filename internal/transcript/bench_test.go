package transcript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// longSessionPaths returns the five long spotter sessions and their total
// size.
func longSessionPaths(b *testing.B) ([]string, int64) {
	var paths []string
	var size int64
	for _, path := range realFiles(b) {
		if longSessions[filepath.Base(path)] {
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			paths, size = append(paths, path), size+st.Size()
		}
	}
	return paths, size
}

// BenchmarkReadFile reads the five long sessions whole (14.9 MB, 9,234
// lines), as replay and the archive do.
func BenchmarkReadFile(b *testing.B) {
	paths, size := longSessionPaths(b)
	b.SetBytes(size)
	for b.Loop() {
		for _, path := range paths {
			if _, err := ReadFile(path, Cursor{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkContextUsage streams the same files holding one record at a
// time, as the context monitor does.
func BenchmarkContextUsage(b *testing.B) {
	paths, size := longSessionPaths(b)
	b.SetBytes(size)
	for b.Loop() {
		for _, path := range paths {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			var u ctxkeep.Usage
			sc := NewScanner(f, Cursor{})
			for sc.Scan() {
				r := sc.Record()
				UpdateUsage(&u, &r)
			}
			f.Close()
			if sc.Err() != nil || !u.Known() {
				b.Fatalf("%v, %+v", sc.Err(), u)
			}
		}
	}
}
