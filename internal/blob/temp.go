package blob

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Temp is a temporary file an interrupted Put left in a fan-out folder
// (".<name>.zst.tmp-<random>"): garbage, never read.
type Temp struct {
	Path    string    `json:"path"`
	Size    int64     `json:"bytes"`
	ModTime time.Time `json:"written_at"`
}

// WalkTemps calls fn for every leftover temporary file. A Put in progress
// has one too: callers remove only those older than any Put can take.
func (s *Store) WalkTemps(fn func(Temp) error) error {
	fans, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, fan := range fans {
		if !fan.IsDir() || len(fan.Name()) != 2 {
			continue
		}
		dir := filepath.Join(s.dir, fan.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), ".") || !strings.Contains(f.Name(), ".tmp-") {
				continue
			}
			fi, err := f.Info()
			if err != nil {
				continue // renamed or removed meanwhile
			}
			if err := fn(Temp{Path: filepath.Join(dir, f.Name()), Size: fi.Size(), ModTime: fi.ModTime()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ModTime returns when blob h was written.
func (s *Store) ModTime(h Hash) (time.Time, error) {
	st, err := os.Stat(s.Path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, ErrNotFound
	}
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime(), nil
}
