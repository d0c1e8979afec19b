package logfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
)

func TestAppendAndSince(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "ctxkeep.log")
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, msg := range []string{"old", "panic: boom\ngoroutine 1\n", "third", "fourth"} {
		if err := Append(path, t0.Add(time.Duration(i)*time.Hour), msg); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	got, err := Since(path, t0.Add(time.Hour), 2)
	if err != nil || len(got) != 2 || got[0].Message != "third" || got[1].Message != "fourth" {
		t.Fatalf("Since = %+v, %v", got, err)
	}
	all, _ := Since(path, t0, 10)
	if len(all) != 4 || !strings.Contains(all[1].Message, "panic: boom ⏎ goroutine 1") {
		t.Fatalf("multi-line message not folded: %+v", all)
	}
}

func TestRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctxkeep.log")
	big := strings.Repeat("x", MaxLine)
	for range MaxSize/MaxLine + 2 {
		Append(path, time.Now(), big)
	}
	if _, err := os.Stat(path + ".1"); err != nil {
		t.Fatalf("not rotated: %v", err)
	}
	if st, err := os.Stat(path); err == nil && st.Size() > MaxSize {
		t.Fatalf("log still %d bytes", st.Size())
	}
}

// A message quoting a hostile field of 12 MB holding secrets (an id, a
// path, a server's error) is written redacted and cut, its size noted.
func TestAppendRedactsAndCuts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctxkeep.log")
	var secrets []string
	var msg strings.Builder
	msg.WriteString("hook: invalid session id \"")
	for _, f := range redacttest.Corpus() {
		msg.WriteString(f.Text + "\n")
		if msg.Len() < MaxLine-200 {
			secrets = append(secrets, f.Secret)
		}
	}
	all := msg.String()
	for msg.Len() < 12<<20 {
		msg.WriteString(all)
	}
	if err := Append(path, time.Now(), msg.String()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if len(data) > 5*MaxLine { // a newline is folded into " ⏎ "
		t.Errorf("the log line is %d bytes", len(data))
	}
	if want := fmt.Sprintf("[%d bytes, cut]", len(strings.TrimSpace(msg.String()))); !strings.Contains(string(data), want) {
		t.Errorf("no %q in %.300s…", want, data)
	}
	for _, s := range secrets {
		if strings.Contains(string(data), s) {
			t.Errorf("the log holds %q", s)
		}
	}
	if len(secrets) < 10 {
		t.Fatalf("only %d secrets in the kept part: the test no longer tests", len(secrets))
	}
}
