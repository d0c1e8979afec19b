package fsx

import "errors"

// ErrLocked is returned by TryLocked when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// TryLocked is Locked without waiting: when another process holds the
// lock, it returns ErrLocked at once and fn does not run (a background job
// that finds its twin at work leaves it be).
func TryLocked(lockPath string, fn func() error) error {
	return withLock(lockPath, tryLockFile, fn)
}
