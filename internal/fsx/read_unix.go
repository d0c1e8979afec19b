//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// openRegular opens path for reading without following a symbolic link
// at path (O_NOFOLLOW) and without blocking on a FIFO (O_NONBLOCK, which
// changes nothing for a regular file).
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, linkError(path, err)
	}
	return f, nil
}
