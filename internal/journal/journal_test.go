package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
)

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"258c7280-ae70-4798-800f-63464d01a85d", "abc", "a.b_c-1"} {
		if err := ValidSessionID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, ".hidden", "-rf", "a..b", "a\x00b", "ü", string(make([]byte, 129))} {
		if ValidSessionID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestAppendAndReadFromCursor(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		if err := Append(dir, "s1", ctxkeep.Event{Time: now, Event: "PostToolUse", Tool: "Bash", Bytes: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	path, _ := Path(dir, "s1")
	st, _ := os.Stat(path)
	d, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o600 || d.Mode().Perm() != 0o700 {
		t.Errorf("modes: %v %v", st.Mode().Perm(), d.Mode().Perm())
	}
	var got []ctxkeep.Event
	next, bad, err := Read(path, 0, func(r ctxkeep.Event) error { got = append(got, r); return nil })
	if err != nil || bad != 0 || len(got) != 3 || next != st.Size() || got[2].Bytes != 2 || !got[0].Time.Equal(now) {
		t.Fatalf("Read = %d records, next %d (size %d), bad %d, err %v", len(got), next, st.Size(), bad, err)
	}

	// A torn tail and a garbage line: the garbage is skipped, the tail waits.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("garbage\n{\"ev\":\"Stop\",\"t\":\"2026-11-21T12:00:00Z\"")
	f.Close()
	got = nil
	next2, bad, err := Read(path, next, func(r ctxkeep.Event) error { got = append(got, r); return nil })
	if err != nil || bad != 1 || len(got) != 0 || next2 != next+int64(len("garbage\n")) {
		t.Fatalf("second Read: %d records, bad %d, next %d, err %v", len(got), bad, next2, err)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(",\"bytes\":1,\"us\":1,\"out\":\"ok\"}\n")
	f.Close()
	got = nil
	if _, _, err := Read(path, next2, func(r ctxkeep.Event) error { got = append(got, r); return nil }); err != nil || len(got) != 1 || got[0].Event != "Stop" {
		t.Fatalf("completed tail: %v %v", got, err)
	}
}

func TestAppendRefusesBadSession(t *testing.T) {
	dir := t.TempDir()
	if err := Append(dir, "../escape", ctxkeep.Event{Event: "Stop"}); err == nil {
		t.Fatal("accepted a traversal session id")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.jsonl")); err == nil {
		t.Fatal("wrote outside the journal folder")
	}
}

func TestConcurrentAppendsNeverInterleave(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				Append(dir, "s", ctxkeep.Event{Event: "PreToolUse", Tool: fmt.Sprintf("w%d-%d", w, i), Cwd: string(make([]byte, 300))})
			}
		}()
	}
	wg.Wait()
	path, _ := Path(dir, "s")
	seen := map[string]bool{}
	_, bad, err := Read(path, 0, func(r ctxkeep.Event) error { seen[r.Tool] = true; return nil })
	if err != nil || bad != 0 || len(seen) != 16*200 {
		t.Fatalf("read %d distinct records, %d bad, err %v", len(seen), bad, err)
	}
}

func TestSessions(t *testing.T) {
	dir := t.TempDir()
	Append(dir, "a", ctxkeep.Event{Event: "Stop"})
	Append(dir, "b", ctxkeep.Event{Event: "Stop"})
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600)
	ids, err := Sessions(dir)
	if err != nil || len(ids) != 2 {
		t.Fatalf("Sessions = %v, %v", ids, err)
	}
	if ids, err := Sessions(filepath.Join(dir, "missing")); err != nil || ids != nil {
		t.Fatalf("missing dir: %v %v", ids, err)
	}
}

// A journalled command is redacted (it is learned from, and read back), and
// a hostile field of 12 MB is cut, its size noted; the record stays one
// line that reads back.
func TestAppendRedactsAndCuts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	var command strings.Builder
	for _, f := range redacttest.Corpus() {
		command.WriteString(f.Text + "\n")
	}
	command.WriteString("SOPS_AGE_KEY=" + "AGE-SECRET" + "-KEY-1" + redacttest.Cut("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 1, 58) + " sops -d secrets.yaml")
	huge := "/home/dev/" + strings.Repeat("a", 12<<20) + redacttest.GitHubToken
	ev := ctxkeep.Event{Time: time.Now(), Event: "PostToolUse", Tool: "Bash", Cwd: huge, Transcript: huge,
		Large: &ctxkeep.LargeOutput{Project: "/p", Command: command.String(), Chars: 100000}}
	if err := Append(dir, "s1", ev); err != nil {
		t.Fatal(err)
	}
	path, _ := Path(dir, "s1")
	data, _ := os.ReadFile(path)
	if len(data) > 4*MaxField+1000 {
		t.Errorf("the record is %d bytes", len(data))
	}
	if !strings.Contains(string(data), fmt.Sprintf("[%d bytes, cut]", len(huge))) {
		t.Errorf("the cut field does not say its size: %.300s", data)
	}
	for _, f := range redacttest.Corpus() {
		if strings.Contains(string(data), f.Secret) || strings.Contains(string(data), strings.ReplaceAll(f.Secret, "\n", `\n`)) {
			t.Errorf("the journal holds the %s", f.Name)
		}
	}
	var got []ctxkeep.Event
	if _, bad, err := Read(path, 0, func(r ctxkeep.Event) error { got = append(got, r); return nil }); err != nil || bad != 0 || len(got) != 1 {
		t.Fatalf("Read: %d records, %d bad, %v", len(got), bad, err)
	}
	if c := got[0].Large.Command; !strings.HasSuffix(c, " sops -d secrets.yaml") || !strings.Contains(c, "[redacted:age-secret-key]") {
		t.Errorf("the command does not keep its end, redacted: …%s", c[max(0, len(c)-200):])
	}
}
