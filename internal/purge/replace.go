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
// rename), with the file's mode. It returns the backup's path.
//
// The client may be appending meanwhile (a purge with --force), each line
// the child of one before it: the lines appended since t was read are
// copied after content, byte for byte and in order, right up to the
// rename (swapIn). One that lands in the old file in the instant between
// the last look and the rename, while the next goes to the new file, would
// end up after its child if it were simply added at the end: the new file
// is then replaced once more, with it before what followed. The backup
// gets every line the old file received.
func Replace(t *Transcript, content []byte, now time.Time) (backup string, err error) {
	old, err := os.Open(t.Path)
	if err != nil {
		return "", err
	}
	defer func() { old.Close() }()
	cur, err := io.ReadAll(old)
	if err != nil {
		return "", err
	}
	if !bytes.HasPrefix(cur, t.Data) {
		return "", fmt.Errorf("%s: %w; run the command again", t.Path, ErrChanged)
	}
	if backup, err = writeBackup(t.Path, cur, t.Mode, now); err != nil {
		return "", err
	}
	body := append(append(make([]byte, 0, len(content)+len(cur)-len(t.Data)), content...), cur[len(t.Data):]...)
	for round := 1; ; round++ {
		next, caught, err := swapIn(t.Path, t.Mode, body, old)
		if err != nil {
			return backup, fmt.Errorf("replacing %s (the original is in %s): %w", t.Path, backup, err)
		}
		waitForWriters(old)
		late, err := io.ReadAll(old) // what reached the old file after the last look
		if round == 1 && err == nil {
			err = fsx.Append(backup, append(caught, late...))
		}
		old.Close()
		old = next
		if err != nil || len(late) == 0 {
			return backup, err
		}
		if round == maxRounds { // never seen: the client would have to append without a pause
			err = fsx.Append(t.Path, late)
			return backup, fmt.Errorf("%s: %d byte(s) the client appended during the purge are at the end, maybe after lines that follow them; the original is in %s: %w", t.Path, len(late), backup, err)
		}
		body = append(append(body, caught...), late...)
	}
}

// maxRounds bounds the replacements Replace makes to put late lines in order.
const maxRounds = 10

// waitForWriters waits, up to writersWait, until no other process holds
// the replaced file open for writing: one that opened it by path just
// before the rename (to append a line) writes to it just after, and that
// line must be read from it, not lost with it.
func waitForWriters(old *os.File) {
	pause := time.Millisecond
	for give := time.Now().Add(writersWait); otherWriters(old) && time.Now().Before(give); {
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// writersWait is how long Replace waits for a writer of the replaced file
// to let go of it: the client holds a transcript open only to append one
// line.
const writersWait = 5 * time.Second

// swapIn replaces the file at path with body followed by whatever old (open
// on the file at path, read up to its end so far) receives until the
// rename: it copies those bytes into the new file, syncs it, and looks
// again, until a look finds nothing new. It returns the bytes it copied,
// and the new file, open at the end of what it wrote, so that what the
// client appends to it next can be found the same way.
func swapIn(path string, mode os.FileMode, body []byte, old *os.File) (*os.File, []byte, error) {
	var caught bytes.Buffer
	err := fsx.WriteAtomicChecked(path, mode, func(w io.Writer) error {
		_, err := w.Write(body)
		return err
	}, func(tmp *os.File) error {
		for {
			n, err := io.Copy(io.MultiWriter(tmp, &caught), old)
			if err != nil || n == 0 {
				return err
			}
			if err := tmp.Sync(); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	next, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if _, err := next.Seek(int64(len(body)+caught.Len()), io.SeekStart); err != nil {
		next.Close()
		return nil, nil, err
	}
	return next, caught.Bytes(), nil
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
