package purge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
