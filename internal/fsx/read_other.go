//go:build !unix

package fsx

import (
	"fmt"
	"io/fs"
	"os"
)

// openRegular opens path for reading unless it is a symbolic link; where
// there is no O_NOFOLLOW, the file opened must be the one looked at.
func openRegular(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if before.Mode()&fs.ModeSymlink != 0 || !before.Mode().IsRegular() {
		return nil, linkError(path, fmt.Errorf("%s is not a regular file: %s", path, typeName(before.Mode())))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("%s changed while it was opened", path)
	}
	return f, nil
}
