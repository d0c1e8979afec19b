package blob

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// Temp is a temporary file an interrupted Put left in a fan-out folder
// (".<name>.zst.tmp-<random>"): garbage, never read.
type Temp = ctxkeep.TempFile

// WalkTemps calls fn for every leftover temporary file. A Put in progress
// has one too: callers remove only those older than any Put can take.
func (s *Store) WalkTemps(fn func(Temp) error) error {
	return s.walkFiles(func(fan, name string, fi fs.FileInfo) error {
		if !strings.HasPrefix(name, ".") || !strings.Contains(name, ".tmp-") {
			return nil
		}
		return fn(Temp{Path: filepath.Join(s.dir, fan, name), Size: fi.Size(), ModTime: fi.ModTime()})
	})
}

// ModTime returns when blob h was written.
func (s *Store) ModTime(h ctxkeep.Hash) (time.Time, error) {
	st, err := os.Stat(s.Path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, ctxkeep.Errorf(ctxkeep.ErrNotFound, "blob not found: %s", h)
	}
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime(), nil
}
