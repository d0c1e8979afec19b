package fsx

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the files at from and to atomically; when to does not
// exist (existed false), from is renamed to it only if it still does not
// (os.ErrExist otherwise). errNoExchange when the file system cannot.
func exchange(from, to string, existed bool) error {
	flags := uint(unix.RENAME_EXCHANGE)
	if !existed {
		flags = unix.RENAME_NOREPLACE
	}
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, flags)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &errExist{err}
	case errors.Is(err, unix.ENOENT) && existed:
		return &errExist{err} // removed meanwhile: another version of it
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return errNoExchange
	}
	return err
}

type errExist struct{ err error }

func (e *errExist) Error() string        { return e.err.Error() }
func (e *errExist) Is(target error) bool { return target == os.ErrExist }
