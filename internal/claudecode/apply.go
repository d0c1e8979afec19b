package claudecode

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/linediff"
)

// ApplyOptions control ApplyFile.
type ApplyOptions struct {
	DryRun bool      // work out the change and its diff, write nothing
	Now    time.Time // names the backup; zero means the current time
}

// ApplyResult says what ApplyFile did, or would do in a dry run.
type ApplyResult struct {
	Path    string // the file as the caller named it
	Changed bool   // the edit changed the content
	Created bool   // the file did not exist and the edit gave it content
	Backup  string // the copy of the previous content, when one was written
	Diff    string // in a dry run, the change as a unified diff
}

// Modes for what ApplyFile creates. The folder is the client's (~/.claude
// or a project's .claude), so it gets the usual mode; a settings file may
// hold secrets in "env", so a new one is private.
const (
	settingsDirPerm  fs.FileMode = 0o755
	newSettingsPerm  fs.FileMode = 0o600
	backupTimeLayout             = "20060102T150405Z"
)

// ApplyFile runs edit (AddHooks or RemoveHooks, typically) on the content
// of the file at path, a missing file reading as empty. When the content
// changes, the previous content is first saved next to path as
// path.ctxkeep-backup-<UTC time>, then the file is replaced atomically,
// keeping its mode. When path is a symbolic link, as for dotfiles kept in a
// repository, the file it points to is replaced and the link stays; the
// backup goes beside the link, where it cannot be committed by mistake.
//
// If edit fails, nothing is written and the error names the file.
func ApplyFile(path string, edit func([]byte) ([]byte, bool, error), opt ApplyOptions) (ApplyResult, error) {
	res := ApplyResult{Path: path}
	target, err := resolveSymlink(path)
	if err != nil {
		return res, err
	}
	old, info, err := readIfExists(target)
	if err != nil {
		return res, err
	}
	out, changed, err := edit(old)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	if !changed {
		return res, nil
	}
	res.Changed, res.Created = true, info == nil
	if opt.DryRun {
		res.Diff = linediff.Unified(path, path+" (after)", old, out, 3)
		return res, nil
	}

	perm := newSettingsPerm
	if info != nil {
		perm = info.Mode().Perm()
		if res.Backup, err = backup(path, old, perm, opt.Now); err != nil {
			return res, err
		}
		trimBackups(path)
	} else if err := os.MkdirAll(filepath.Dir(target), settingsDirPerm); err != nil {
		return res, err
	}
	if err := fsx.WriteFileAtomic(target, out, perm); err != nil {
		return res, fmt.Errorf("replacing %s: %w", path, err)
	}
	return res, nil
}

// resolveSymlink follows path while it is a symbolic link, even a dangling
// one, and returns the path of the file itself. A relative link is joined
// to its folder without cleaning, so that ".." is resolved by the system
// through any linked folder, as it would be when opening the link.
func resolveSymlink(path string) (string, error) {
	for range 40 { // the usual limit on links in a row
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Dir(path) + string(filepath.Separator) + dest
		}
		path = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// readIfExists returns the content and mode of the file at path, or nil
// and a nil FileInfo when there is none.
func readIfExists(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, info, nil
}

// backup saves data next to path under a name with the time in it. A name
// already taken (two runs in the same second) gets a counter rather than
// being overwritten, so the oldest copy of the user's file survives.
func backup(path string, data []byte, perm fs.FileMode, now time.Time) (string, error) {
	if now.IsZero() {
		now = time.Now()
	}
	base := path + ".ctxkeep-backup-" + now.UTC().Format(backupTimeLayout)
	name := base
	for n := 2; exists(name); n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	if err := fsx.WriteFileAtomic(name, data, perm); err != nil {
		return "", fmt.Errorf("backing up %s: %w", path, err)
	}
	return name, nil
}

// keepBackups is how many backups of a file are kept: the oldest, which
// holds the file as it was before ctxkeep first changed it, and the
// newest ones.
const keepBackups = 3

// trimBackups removes the backups of path but the oldest and the newest
// ones, so that they do not pile up beside the user's settings. Their
// names sort in time order (UTC time, then a counter); a failure to
// remove one is harmless.
func trimBackups(path string) {
	names, err := filepath.Glob(globEscape(path) + ".ctxkeep-backup-*")
	if err != nil || len(names) <= keepBackups {
		return
	}
	sort.Slice(names, func(i, j int) bool { return backupOrder(names[i]) < backupOrder(names[j]) })
	for _, name := range names[1 : len(names)-(keepBackups-1)] {
		os.Remove(name)
	}
}

// backupOrder is a backup's name with its counter padded, so that "-10"
// sorts after "-9" and a name without one first.
func backupOrder(name string) string {
	i := strings.Index(name, ".ctxkeep-backup-")
	stamp := name[i+len(".ctxkeep-backup-"):]
	base, n, _ := strings.Cut(stamp, "-")
	return fmt.Sprintf("%s-%09s", base, n)
}

// globEscape quotes the pattern characters of a path for filepath.Glob.
func globEscape(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// exists reports whether path names anything, even a dangling link. An
// error other than "not found" says no: the write that follows will report it.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
