package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ErrLockBusy is returned by LockFolder when the lock stayed taken, and
// fresh, for as long as the caller would wait.
var ErrLockBusy = errors.New("held by another process")

// LockFolder takes the lock npm's proper-lockfile takes, which Node
// programs share a file with (Claude Code for its user settings): a
// folder at lockPath, created by mkdir, which only one process can win.
// The holder refreshes the folder's mtime every stale/2; a folder not
// refreshed for stale is the leftover of a process that died, and is taken
// over. LockFolder tries for up to wait, then gives up with ErrLockBusy.
// It returns the function that releases the lock (removes the folder).
func LockFolder(lockPath string, stale, wait time.Duration) (release func(), err error) {
	give := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		err := os.Mkdir(lockPath, DirPerm)
		if err == nil {
			return holdFolder(lockPath, stale), nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", lockPath, err)
		}
		if info, err := os.Stat(lockPath); err == nil && time.Since(info.ModTime()) > stale && os.Remove(lockPath) == nil {
			continue // abandoned, and removed: the next Mkdir takes it (or loses it to another taker)
		}
		if time.Now().After(give) {
			return nil, fmt.Errorf("lock %s: %w", lockPath, ErrLockBusy)
		}
		time.Sleep(pause)
		pause = min(pause*3/2, 50*time.Millisecond)
	}
}

// holdFolder keeps the lock fresh until it is released.
func holdFolder(lockPath string, stale time.Duration) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(stale / 2)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				os.Chtimes(lockPath, now, now)
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		os.Remove(lockPath)
	}
}
