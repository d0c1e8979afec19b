package purge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

func writeTranscript(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), testSession+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Replace keeps a timestamped backup of the original, byte for byte, then
// replaces the file with the new content and its mode.
func TestReplaceBacksUpFirst(t *testing.T) {
	orig := session(bigFailure()).bytes()
	path := writeTranscript(t, orig)
	tr, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := tr.Plan(Options{}).Render()
	now := time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)
	backup, err := Replace(tr, out, now)
	if err != nil {
		t.Fatal(err)
	}
	if backup != path+".ctxkeep-backup-20261121T223000Z" {
		t.Fatalf("backup at %s", backup)
	}
	if got, _ := os.ReadFile(backup); !bytes.Equal(got, orig) {
		t.Fatal("the backup differs from the original")
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, out) {
		t.Fatal("the transcript is not the purged content")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	// A second purge in the same second keeps the first backup.
	tr2, _ := Read(path)
	if b2, err := Replace(tr2, out, now); err != nil || b2 == backup {
		t.Fatalf("second backup %s, %v", b2, err)
	}
	if got, _ := os.ReadFile(backup); !bytes.Equal(got, orig) {
		t.Fatal("the first backup was overwritten")
	}
}

// Lines the client appends after the transcript was read are kept, at the
// end, byte for byte.
func TestReplaceKeepsLinesAppendedMeanwhile(t *testing.T) {
	path := writeTranscript(t, session(bigFailure()).bytes())
	tr, _ := Read(path)
	out, _ := tr.Plan(Options{Live: true}).Render()
	late := []byte(`{"type":"user","uuid":"late","parentUuid":"00000000-0000-4000-8000-000000000013","message":{"role":"user","content":"one more"}}` + "\n")
	if err := fsx.Append(path, late); err != nil {
		t.Fatal(err)
	}
	backup, err := Replace(tr, out, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, append(append([]byte{}, out...), late...)) {
		t.Fatalf("the appended line is not kept at the end:\n%s", got)
	}
	if b, _ := os.ReadFile(backup); !bytes.HasSuffix(b, late) {
		t.Fatal("the backup lacks the appended line")
	}
	wellFormed(t, got)
}

// A transcript rewritten since it was read is left alone.
func TestReplaceRefusesARewrittenFile(t *testing.T) {
	path := writeTranscript(t, session("x").bytes())
	tr, _ := Read(path)
	os.WriteFile(path, []byte("{}\n"), 0o600)
	if _, err := Replace(tr, []byte("new\n"), time.Now()); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}\n" {
		t.Fatalf("file changed: %q", got)
	}
	if m, _ := filepath.Glob(path + BackupSuffix + "*"); len(m) != 0 {
		t.Fatalf("backup written: %v", m)
	}
}

// A session is live while a running client has registered it, or while
// its transcript was written a moment ago; a registration left by a client
// that is gone does not count.
func TestLive(t *testing.T) {
	claude := t.TempDir()
	path := writeTranscript(t, session("x").bytes())
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	tr, _ := Read(path)
	now := time.Now()
	if l := Live(tr, claude, now); l.Live {
		t.Fatalf("live with nothing running: %+v", l)
	}
	register := func(pid int) {
		os.MkdirAll(filepath.Join(claude, "sessions"), 0o700)
		os.WriteFile(filepath.Join(claude, "sessions", fmt.Sprint(pid)+".json"),
			[]byte(fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/p","kind":"interactive"}`, pid, testSession)), 0o600)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	register(dead.Process.Pid)
	if l := Live(tr, claude, now); l.Live {
		t.Fatalf("live for a client that exited: %+v", l)
	}
	register(os.Getpid())
	if l := Live(tr, claude, now); !l.Live {
		t.Fatalf("not live for a running client: %+v", l)
	}
	os.RemoveAll(filepath.Join(claude, "sessions"))
	if l := Live(tr, claude, tr.ModTime.Add(10*time.Second)); !l.Live {
		t.Fatalf("not live just after a write: %+v", l)
	}
}

// appender writes lines to a transcript the way the client does while a
// purge runs: each one opened by path, appended with one write, closed;
// each line the child of the one before, the first the child of parent.
type appender struct {
	path   string
	parent string
	n      int
}

func (a *appender) next() error {
	a.n++
	uuid := fmt.Sprintf("a0000000-0000-4000-8000-%012d", a.n)
	line := fmt.Sprintf(`{"type":"progress","uuid":%q,"parentUuid":%q,"sessionId":%q,"data":{"type":"hook_progress"}}`+"\n",
		uuid, a.parent, testSession)
	a.parent = uuid
	return fsx.Append(a.path, []byte(line))
}

// The client keeps appending while `purge --force` rewrites the file:
// every line it appended is in the result, once, in the order it was
// written, each after its parent, whenever it landed (before the rename,
// while the rename happens, or after it).
func TestReplaceKeepsTheOrderOfLinesAppendedDuringIt(t *testing.T) {
	for trial := range 20 {
		path := writeTranscript(t, session(bigFailure()).bytes())
		tr, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := tr.Plan(Options{Live: true}).Render()
		if err != nil {
			t.Fatal(err)
		}
		last := tr.Lines[len(tr.Lines)-2].Rec.UUID // the line before the bookkeeping
		a := &appender{path: path, parent: last}
		stop, done := make(chan struct{}), make(chan error)
		go func() {
			for {
				select {
				case <-stop:
					done <- nil
					return
				default:
				}
				if err := a.next(); err != nil {
					done <- err
					return
				}
				time.Sleep(200 * time.Microsecond) // the client appends a line now and then, not without a pause
			}
		}()
		backup, err := Replace(tr, out, time.Now())
		close(stop)
		if werr := <-done; werr != nil {
			t.Fatal(werr)
		}
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if !bytes.HasPrefix(got, out) {
			t.Fatalf("trial %d: the purged content is not at the start of the file", trial)
		}
		checkAppended(t, trial, got[len(out):], last, a.n)
		wellFormed(t, got)
		os.Remove(backup)
	}
}

// checkAppended checks that tail holds exactly the n lines the appender
// wrote, in order, each the child of the one before it.
func checkAppended(t *testing.T, trial int, tail []byte, first string, n int) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(tail, []byte("\n")), []byte("\n"))
	if len(tail) == 0 {
		lines = nil
	}
	if len(lines) != n {
		t.Fatalf("trial %d: %d appended lines after the purged content, want %d", trial, len(lines), n)
	}
	parent := first
	for i, l := range lines {
		var rec struct{ UUID, ParentUUID string }
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatalf("trial %d: appended line %d: %v: %q", trial, i+1, err, l)
		}
		if want := fmt.Sprintf("a0000000-0000-4000-8000-%012d", i+1); rec.UUID != want || rec.ParentUUID != parent {
			t.Fatalf("trial %d: appended line %d is %s (child of %s), want %s, child of %s: out of order",
				trial, i+1, rec.UUID, rec.ParentUUID, want, parent)
		}
		parent = rec.UUID
	}
}

// A line the client writes just after the rename, through the file it
// opened just before (to append that line), lands in the old file: it is
// read from there, once the client has let go of it, and put in order,
// before what the client appended to the new file since.
func TestReplaceKeepsALineWrittenToTheOldFileAfterTheRename(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finding who holds the old file open needs /proc")
	}
	path := writeTranscript(t, session(bigFailure()).bytes())
	tr, _ := Read(path)
	out, _ := tr.Plan(Options{Live: true}).Render()
	before, _ := os.Stat(path)
	inFlight, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0) // opened before the rename
	if err != nil {
		t.Fatal(err)
	}
	last := tr.Lines[len(tr.Lines)-2].Rec.UUID
	a := &appender{path: path, parent: last}
	done := make(chan error)
	go func() {
		_, err := Replace(tr, out, time.Now())
		done <- err
	}()
	for { // until the new file is in place
		if now, err := os.Stat(path); err == nil && !os.SameFile(now, before) {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Replace returned without replacing the file (it should wait for the writer): %v", err)
		default:
			runtime.Gosched()
		}
	}
	// The in-flight line goes to the old file; the next one, opened by
	// path, to the new one.
	line := fmt.Sprintf(`{"type":"progress","uuid":"a0000000-0000-4000-8000-000000000001","parentUuid":%q,"sessionId":%q}`+"\n", last, testSession)
	if _, err := inFlight.WriteString(line); err != nil {
		t.Fatal(err)
	}
	a.parent, a.n = "a0000000-0000-4000-8000-000000000001", 1
	if err := a.next(); err != nil {
		t.Fatal(err)
	}
	inFlight.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.HasPrefix(got, out) {
		t.Fatal("the purged content is not at the start of the file")
	}
	checkAppended(t, 0, got[len(out):], last, 2)
}
