// Package fsx is the one place that knows how to make a file durable:
// write to a temporary file in the target's folder, fsync it, rename it over
// the target, and fsync the folder so the rename itself survives a crash.
//
// Everything that must not be lost or torn (blobs, settings.json, backups,
// rewritten transcripts) goes through WriteFileAtomic.
package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DirPerm and FilePerm are the modes of everything ctxkeep creates under its
// own data folders: private to the user.
const (
	DirPerm  os.FileMode = 0o700
	FilePerm os.FileMode = 0o600
)

// WriteFileAtomic replaces path with data so that a reader (or a crash) sees
// either the old content or the new one, never a mix. The parent folder must
// exist.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return WriteAtomic(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for content produced by a writer function,
// so large content can be streamed (compressed blobs) rather than buffered.
func WriteAtomic(path string, perm os.FileMode, write func(io.Writer) error) error {
	return viaTemp(path, perm, true, write, nil)
}

// WriteAtomicChecked is WriteAtomic with a last word before the rename:
// once the new content is written and synced, check runs with the
// temporary file still open, and an error from it abandons the
// replacement (path is left as it is, the temporary file removed). It is
// for files someone else may write meanwhile: check compares the file with
// what was read, or appends what was added to it since (syncing what it
// writes itself), as close to the rename as can be.
func WriteAtomicChecked(path string, perm os.FileMode, write func(io.Writer) error, check func(tmp *os.File) error) error {
	return viaTemp(path, perm, true, write, check)
}

// viaTemp writes a temporary file in path's folder and renames it over
// path; with durable, it syncs the file before and the folder after. A
// non-nil check runs just before the rename and may call it off.
func viaTemp(path string, perm os.FileMode, durable bool, write func(io.Writer) error, check func(*os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = write(f); err != nil {
		return err
	}
	if durable {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if check != nil {
		if err = check(f); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// WriteFileReplace replaces path with data through a temporary file and a
// rename, without fsync: readers never see a torn file, but a crash may lose
// it. For derived copies that can be rebuilt, where an fsync would only
// slow the hook down.
func WriteFileReplace(path string, data []byte, perm os.FileMode) error {
	return viaTemp(path, perm, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, nil)
}

// SyncDir fsyncs a folder so that entries created, renamed or removed in it
// are durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Append writes data at the end of the file at path with one write(2) on a
// file opened O_APPEND, creating the file (FilePerm) and its folder
// (DirPerm) when missing. On a local file system such a write lands whole
// and never interleaves with another process's, which is what lets many
// hook processes append lines to one file without a lock.
func Append(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, FilePerm)
	if errors.Is(err, fs.ErrNotExist) {
		if err = MkdirPrivate(filepath.Dir(path)); err == nil {
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, FilePerm)
		}
	}
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// MkdirPrivate creates dir and its missing parents with DirPerm. An existing
// folder is left as it is.
func MkdirPrivate(dir string) error {
	return os.MkdirAll(dir, DirPerm)
}

// Locked runs fn while holding an exclusive lock on the file lockPath
// (created if missing), so that read-modify-write cycles of many processes
// on one small file do not lose each other's updates.
func Locked(lockPath string, fn func() error) error {
	return withLock(lockPath, lockFile, fn)
}

// withLock runs fn while holding the lock lock takes on the file lockPath.
func withLock(lockPath string, lock func(*os.File) error, fn func() error) error {
	if err := MkdirPrivate(filepath.Dir(lockPath)); err != nil {
		return err
	}
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, FilePerm)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lock(f); err != nil {
		if errors.Is(err, ErrLocked) {
			return err
		}
		return fmt.Errorf("lock %s: %w", lockPath, err)
	}
	return fn() // closing f releases the lock
}
