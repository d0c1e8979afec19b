package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrTooLarge is returned by ReadRegular for a file over its size limit.
var ErrTooLarge = errors.New("file over the size limit")

// OpenRegular opens a file whose name came from input (a hook event, the
// wrapper's command line) for reading: only a regular file, never through
// a symbolic link at path itself. A FIFO, a device or a folder is refused
// at once: the open does not block (O_NONBLOCK) and the file's type is
// checked on the open file (fstat), so it cannot be swapped in between.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file: %s", path, typeName(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// typeName says what a file that is not a regular file is.
func typeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "of type " + m.Type().String()
}

// ReadRegular reads a file as OpenRegular opens it, at most max bytes: a
// file over max is refused from its size (ErrTooLarge) before any of it
// is read, so a 2 GB sparse file costs nothing.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, st.Size(), max)
	}
	// The file may grow while it is read: never past max+1.
	b, err := readAllInto(make([]byte, 0, st.Size()+1), io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w (limit %d)", path, ErrTooLarge, max)
	}
	return b, nil
}

// ReadRegularBelow is ReadRegular for a path that must lie inside root,
// with no symbolic link among the folders between root and the file:
// tool-results/x.txt read through a tool-results that links elsewhere is
// refused. root itself may be (or lie behind) a link.
func ReadRegularBelow(root, path string, max int64) ([]byte, error) {
	rel, err := filepath.Rel(root, filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("%s is not inside %s", path, root)
	}
	dir := root
	parts := strings.Split(rel, string(filepath.Separator))
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		st, err := os.Lstat(dir)
		if err != nil {
			return nil, err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link", dir)
		}
	}
	return ReadRegular(path, max)
}

// linkError names a symbolic link that an open without following refused
// (ELOOP on Linux, EMLINK on FreeBSD), or returns err as it is.
func linkError(path string, err error) error {
	if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link", path)
	}
	return err
}

// readAllInto is io.ReadAll into a buffer sized beforehand.
func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
