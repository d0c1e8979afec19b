package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/linediff"
)

// ApplyOptions control ApplyFile.
type ApplyOptions struct {
	DryRun   bool      // work out the change and its diff, write nothing
	Now      time.Time // names the backup; zero means the current time
	NoBackup bool      // the file is ctxkeep's own (a plugin's): no backup
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

// Errors of ApplyFile, each wrapped with the file's name.
var (
	// ErrChangedMeanwhile: someone else (the client, usually) kept
	// writing the file while ctxkeep edited it, every time it tried.
	ErrChangedMeanwhile = errors.New("changed while ctxkeep was editing it; run the command again")
	// ErrReadOnly: the file has no write permission; ctxkeep takes that
	// as the user's wish that it stays as it is.
	ErrReadOnly = errors.New("is read-only")
	// ErrDanglingLink: the file is a symbolic link to nothing.
	ErrDanglingLink = errors.New("is a symbolic link to a file that does not exist")
)

// Edits of one file: ctxkeep's own are serialized by the client's lock
// (lockStale, lockWait), and one that finds the file changed under it
// starts again from the new content, up to editAttempts times.
const (
	editAttempts = 5
	// lockStale is the client's: a lock folder not refreshed for this
	// long belongs to a process that died (Claude Code 2.1.330 takes its
	// user settings' lock with stale: 10000).
	lockStale = 10 * time.Second
	// lockWait outlasts lockStale, so that a dead holder's lock is
	// always taken over before ctxkeep gives up.
	lockWait = lockStale + 5*time.Second
)

// ApplyFile runs edit (AddHooks or RemoveHooks, typically) on the content
// of the file at path, a missing file reading as empty. When the content
// changes, the previous content is first saved next to path as
// path.ctxkeep-backup-<UTC time>, then the file is replaced atomically,
// keeping its mode. When path is a symbolic link, as for dotfiles kept in a
// repository, the file it points to is replaced and the link stays; the
// backup goes beside the link, where it cannot be committed by mistake.
//
// The file may be written by others meanwhile: Claude Code rewrites its
// settings (an "always allow", /model). So the edit runs under the lock
// the client takes for its user settings (the folder path.lock), and the
// file is read again just before the rename: if it changed since it was
// read (content, size, time or inode), nothing is replaced and the edit
// starts again from the new content; after editAttempts tries, the error
// wraps ErrChangedMeanwhile. A read-only file (ErrReadOnly) and a link to
// nothing (ErrDanglingLink) are refused: the user set them up that way.
//
// An edit whose result holds the same JSON as a version of the file one of
// its backups keeps writes that version's bytes (asWritten): uninstall
// after install gives the user's file back byte for byte.
//
// If edit fails, nothing is written and the error names the file.
func ApplyFile(path string, edit func([]byte) ([]byte, bool, error), opt ApplyOptions) (ApplyResult, error) {
	res := ApplyResult{Path: path}
	target, err := resolveSymlink(path)
	if err != nil {
		return res, err
	}
	// A first look without the lock: a file that needs no change, or
	// cannot be edited, is not touched at all.
	was, out, changed, err := editFile(path, target, edit)
	if err != nil || !changed {
		return res, err
	}
	res.Changed, res.Created = true, !was.exists()
	if opt.DryRun {
		res.Diff = linediff.Unified(path, path+" (after)", was.data, out, 3)
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(target), settingsDirPerm); err != nil {
		return res, err
	}
	release, err := fsx.LockFolder(path+".lock", lockStale, lockWait)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	defer release()
	for range editAttempts {
		if was, out, changed, err = editFile(path, target, edit); err != nil || !changed {
			return ApplyResult{Path: path}, err
		}
		res.Changed, res.Created = true, !was.exists()
		if res.Backup, err = replaceChecked(path, target, was, out, opt); !errors.Is(err, errChanged) {
			if err == nil && res.Backup != "" {
				trimBackups(path)
			}
			return res, err
		}
	}
	return res, fmt.Errorf("%s %w", path, ErrChangedMeanwhile)
}

// editFile reads the file at target (named path for the user) and runs
// edit on its content.
func editFile(path, target string, edit func([]byte) ([]byte, bool, error)) (was fileState, out []byte, changed bool, err error) {
	if was, err = readState(target); err == nil {
		err = was.editable(path)
	}
	if err != nil {
		return was, nil, false, err
	}
	if out, changed, err = edit(was.data); err != nil {
		return was, nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if changed {
		out = asWritten(path, out)
	}
	return was, out, changed, nil
}

// asWritten returns out, or when out holds the same JSON, member for
// member in the same order, as a version of the file kept in one of its
// backups (the newest first), that version's bytes: an edit that undoes
// ctxkeep's (uninstall after install) gives the user's file back byte for
// byte, however it was written (on one line, indented with tabs…).
func asWritten(path string, out []byte) []byte {
	names, err := filepath.Glob(globEscape(path) + ".ctxkeep-backup-*")
	if err != nil || len(names) == 0 {
		return out
	}
	want, ok := jsonTokens(out)
	if !ok {
		return out
	}
	sort.Slice(names, func(i, j int) bool { return backupOrder(names[i]) > backupOrder(names[j]) })
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if got, ok := jsonTokens(data); ok && slices.Equal(got, want) {
			if bytes.Equal(data, out) {
				return out
			}
			return data
		}
	}
	return out
}

// jsonTokens is a JSON document as its sequence of tokens (members in
// their order, numbers as written), whatever its spacing; ok is false when
// data is not one JSON value.
func jsonTokens(data []byte) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var toks []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return toks, len(toks) > 0
		}
		if err != nil {
			return nil, false
		}
		toks = append(toks, fmt.Sprintf("%T:%v", tok, tok))
	}
}

// errChanged calls a replacement off: the file is not as it was read.
var errChanged = errors.New("changed since it was read")

// replaceChecked backs up what was read (unless opt.NoBackup) and puts out in its
// place, if the file is still what was read when the new content is
// ready: otherwise it returns errChanged, having written nothing (the
// backup it made is taken back).
func replaceChecked(path, target string, was fileState, out []byte, opt ApplyOptions) (string, error) {
	perm := newSettingsPerm
	var saved string
	if was.exists() {
		perm = was.info.Mode().Perm()
		if !opt.NoBackup {
			var err error
			if saved, err = backup(path, was.data, perm, opt.Now); err != nil {
				return "", err
			}
		}
	}
	err := fsx.ReplaceVerified(target, perm, was.info, func(w io.Writer) error {
		_, err := w.Write(out)
		return err
	}, func(displaced string) (bool, error) {
		now, err := readState(displaced)
		return err == nil && now.same(was), err
	})
	if errors.Is(err, fsx.ErrReplacedMeanwhile) {
		err = fmt.Errorf("%w: %w", errChanged, err)
	}
	switch {
	case errors.Is(err, errChanged):
		if saved != "" {
			os.Remove(saved)
		}
		return "", err
	case err != nil:
		return saved, fmt.Errorf("replacing %s: %w", path, err)
	}
	return saved, nil
}

// resolveSymlink follows path while it is a symbolic link and returns the
// path of the file itself, or ErrDanglingLink when the last link points to
// nothing: creating a file at the end of a link nobody maintains (a
// dotfiles checkout that moved, /nonexistent) is never what the user
// wants. A relative link is joined to its folder without cleaning, so that
// ".." is resolved by the system through any linked folder, as it would be
// when opening the link.
func resolveSymlink(path string) (string, error) {
	name := path
	for range 40 { // the usual limit on links in a row
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			if path != name {
				return "", fmt.Errorf("%s %w (%s): create that file or remove the link, then run the command again", name, ErrDanglingLink, path)
			}
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

// fileState is a file as read: its content and what identifies the
// version read. A missing file has a nil info.
type fileState struct {
	data []byte
	info fs.FileInfo
}

func (s fileState) exists() bool { return s.info != nil }

// same reports whether s and t are the same version of a file: both
// missing, or the same content in the same inode with the same size and
// modification time (a writer that renames a copy over the file changes
// the inode even when it writes the same bytes).
func (s fileState) same(t fileState) bool {
	if !s.exists() || !t.exists() {
		return s.exists() == t.exists()
	}
	return os.SameFile(s.info, t.info) && s.info.Size() == t.info.Size() &&
		s.info.ModTime().Equal(t.info.ModTime()) && bytes.Equal(s.data, t.data)
}

// editable refuses a file ctxkeep must not replace: one without write
// permission. path is the name the user knows it by.
func (s fileState) editable(path string) error {
	if s.exists() && s.info.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s %w (mode %04o): ctxkeep leaves it as it is; make it writable (chmod u+w) to let ctxkeep edit it, or make the change by hand", path, ErrReadOnly, s.info.Mode().Perm())
	}
	return nil
}

// readState reads the file at path, or returns a missing state when there
// is none.
func readState(path string) (fileState, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{}, nil
	}
	if err != nil {
		return fileState{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fileState{}, err
	}
	if !info.Mode().IsRegular() {
		return fileState{}, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fileState{}, err
	}
	return fileState{data: data, info: info}, nil
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
// newest ones; and, when it is none of those, the newest version with
// nothing of ctxkeep's in it (trimBackups).
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
	middle := names[1 : len(names)-(keepBackups-1)]
	// The newest version with nothing of ctxkeep's in it is the user's
	// file as it was before ctxkeep's last install: kept too, so that
	// uninstall gives back its bytes (asWritten) after any number of
	// edits since.
	for i := len(middle) - 1; i >= 0; i-- {
		if data, err := os.ReadFile(middle[i]); err == nil && !bytes.Contains(data, []byte("ctxkeep")) {
			if !userVersionAmong(names[len(names)-(keepBackups-1):]) {
				middle = append(middle[:i:i], middle[i+1:]...)
			}
			break
		}
	}
	for _, name := range middle {
		os.Remove(name)
	}
}

// userVersionAmong reports whether one of the backups named has nothing
// of ctxkeep's in it.
func userVersionAmong(names []string) bool {
	for _, name := range names {
		if data, err := os.ReadFile(name); err == nil && !bytes.Contains(data, []byte("ctxkeep")) {
			return true
		}
	}
	return false
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
