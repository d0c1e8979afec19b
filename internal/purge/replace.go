package purge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// ErrChanged means the transcript no longer starts with what was read: it
// was rewritten meanwhile, and is left alone.
var ErrChanged = errors.New("the transcript was rewritten since it was read")

// BackupSuffix and a UTC time name the copy Replace keeps of a transcript:
// <session>.jsonl.ctxkeep-backup-20261121T223000Z. The client lists
// sessions by their .jsonl name, so it never mistakes a backup for one.
const (
	BackupSuffix = ".ctxkeep-backup-"
	backupLayout = "20060102T150405Z"
)

// Replace puts content in place of the transcript t was read from. First
// the file as it is now is copied, durably, to a timestamped backup beside
// it; then the new content replaces it atomically (temporary file, fsync,
// rename), with the file's mode. Lines the client appended after t was
// read are copied after content byte for byte, those appended while the
// file was being replaced too: they go to the old file until the rename,
// and are read back from it afterwards. It returns the backup's path.
func Replace(t *Transcript, content []byte, now time.Time) (backup string, err error) {
	f, err := os.Open(t.Path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	cur, err := io.ReadAll(f)
	if err != nil {
		return "", err
	}
	if !bytes.HasPrefix(cur, t.Data) {
		return "", fmt.Errorf("%s: %w; run the command again", t.Path, ErrChanged)
	}
	if backup, err = writeBackup(t.Path, cur, t.Mode, now); err != nil {
		return "", err
	}
	err = fsx.WriteAtomic(t.Path, t.Mode, func(w io.Writer) error {
		if _, err := w.Write(content); err != nil {
			return err
		}
		_, err := w.Write(cur[len(t.Data):])
		return err
	})
	if err != nil {
		return backup, fmt.Errorf("replacing %s (the original is in %s): %w", t.Path, backup, err)
	}
	// f still reads the old file, which is where appends made before the
	// rename went.
	late, err := io.ReadAll(f)
	if err == nil && len(late) > 0 {
		if err = fsx.Append(t.Path, late); err == nil {
			err = fsx.Append(backup, late)
		}
	}
	return backup, err
}

// writeBackup saves data beside path under a name with the time in it. A
// name already taken gets a counter rather than being overwritten: the
// oldest copy of the user's file survives.
func writeBackup(path string, data []byte, mode os.FileMode, now time.Time) (string, error) {
	base := path + BackupSuffix + now.UTC().Format(backupLayout)
	name := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(name); errors.Is(err, os.ErrNotExist) {
			break
		}
		name = fmt.Sprintf("%s-%d", base, n)
	}
	if err := fsx.WriteFileAtomic(name, data, mode); err != nil {
		return "", fmt.Errorf("backing up %s: %w", path, err)
	}
	return name, nil
}
