package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ErrReplacedMeanwhile is returned by ReplaceVerified when the file was not,
// at the moment of the replacement, the version the new content was made
// from: someone wrote it meanwhile. The file is theirs again.
var ErrReplacedMeanwhile = errors.New("written by someone else meanwhile")

// ErrConflictKept is returned by ReplaceVerified when two other versions
// of the file came in at once: one is the file, the other is kept beside
// it, and the error names it.
var ErrConflictKept = errors.New("two versions of the file were written by others at the same moment")

// ReplaceVerified replaces the file at path with the content write
// produces, made from a version of the file that same recognises, without
// losing a version someone else put there meanwhile, even a writer that
// takes no lock.
//
// POSIX has no conditional rename: a look at the file just before a
// rename leaves a window in which another process's rename (or in-place
// write) lands and is then replaced, lost. So the new file is exchanged
// with the old one atomically (renameat2 RENAME_EXCHANGE on Linux): the
// displaced file is still there, under the temporary name, and same
// looks at it. If it is not the version read, the exchange is undone, the
// other's version is the file again, and ErrReplacedMeanwhile tells the
// caller to start again from it. A file that did not exist is created
// only if it still does not (RENAME_NOREPLACE).
//
// What remains (docs/SECURITY.md): a writer that reads the file in the
// microseconds between the exchange and its undoing reads the new
// content, and may write its own change on top of it after the undo,
// losing the version the undo put back. And a writer that renames its
// version in those microseconds makes two versions of the file: the undo
// puts the newest in place and keeps the other beside it
// (path.ctxkeep-conflict-<time>, named by the error, ErrConflictKept), so
// that nothing is destroyed. Where exchange is not supported (another
// system, a file system without it), the file is checked once more and
// renamed: the window is back.
//
// was, when not nil, is what the version read looked like (os.Stat): the
// displaced file is first compared with it (same file, size, time), which
// takes a system call, so that a version written meanwhile is given back
// within microseconds; same then compares the content.
func ReplaceVerified(path string, perm os.FileMode, was os.FileInfo, write func(io.Writer) error, same func(displaced string) (bool, error)) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	keepTmp := false
	defer func() {
		if !keepTmp {
			os.Remove(tmp)
		}
	}()
	err = f.Chmod(perm)
	if err == nil {
		err = write(f)
	}
	if err == nil {
		err = f.Sync()
	}
	var mine os.FileInfo
	if err == nil {
		mine, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A last look, now that the new content is durable (the sync takes
	// milliseconds, in which others may have written): most versions
	// written meanwhile are caught here, before anything is replaced.
	existed := true
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		existed = false
	} else if ok, err := unchanged(path, was, same); err != nil || !ok {
		return orReplaced(err)
	}
	switch err := exchange(tmp, path, existed); {
	case errors.Is(err, errNoExchange):
		// The fallback: the window between the last look and the rename
		// stays open.
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
		return SyncDir(dir)
	case errors.Is(err, os.ErrExist):
		return ErrReplacedMeanwhile // created meanwhile
	case err != nil:
		return err
	}
	if !existed {
		return SyncDir(dir) // the new file is in place; nothing was displaced
	}
	// tmp is now the displaced file: what was there at the exchange.
	ok, err := unchanged(tmp, was, same)
	if err == nil && ok {
		return SyncDir(dir)
	}
	// Not the version read: give the file back.
	if xerr := exchange(tmp, path, true); xerr != nil {
		keepTmp = true
		return fmt.Errorf("%s was written meanwhile, and giving it back failed (its previous version is %s): %w", path, tmp, xerr)
	}
	if back, serr := os.Stat(tmp); serr == nil && !os.SameFile(back, mine) {
		// Another version came in while the new content was in place
		// (written from what it read before, most likely): it is the
		// newest, so it goes back in place; the one it replaced, which it
		// may lack, is kept beside it.
		kept := path + ".ctxkeep-conflict-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if xerr := exchange(tmp, path, true); xerr != nil {
			kept = tmp
		}
		if rerr := os.Rename(tmp, kept); rerr != nil {
			kept = tmp
		}
		keepTmp = kept == tmp
		SyncDir(dir)
		return fmt.Errorf("%s: %w: the file holds the newest, %s the one before it; ctxkeep replaced nothing", path, ErrConflictKept, kept)
	}
	SyncDir(dir)
	return orReplaced(err)
}

// unchanged reports whether the file at path is the version read: first
// its system facts (a system call), then what same says of its content.
func unchanged(path string, was os.FileInfo, same func(string) (bool, error)) (bool, error) {
	if was != nil {
		now, err := os.Lstat(path)
		if err != nil || !os.SameFile(now, was) || now.Size() != was.Size() || !now.ModTime().Equal(was.ModTime()) {
			return false, nil
		}
	}
	return same(path)
}

func orReplaced(err error) error {
	if err != nil {
		return err
	}
	return ErrReplacedMeanwhile
}

// errNoExchange means the system or the file system cannot exchange two
// names atomically.
var errNoExchange = errors.New("atomic exchange not supported")
