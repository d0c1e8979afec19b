package keep

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var ctx = context.Background()

func newStore(t testing.TB) *store.Store {
	t.Helper()
	return storetest.Local(t, t.TempDir())
}

var spotterSessions = realdata.Spotter

// Archiving a session while it grows (here: at every 300th line, as Stop
// would) gives exactly the chunks one archive of the whole file gives.
func TestArchiveIncrementallyEqualsAtOnce(t *testing.T) {
	for _, path := range spotterSessions(t)[:3] {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, _ := os.ReadFile(path)
			lines := bytes.SplitAfter(data, []byte("\n"))
			grown := filepath.Join(t.TempDir(), filepath.Base(path))
			st := newStore(t)
			s := Session{ID: "grown", Project: "/p", Transcript: grown}
			for n := 300; ; n += 300 {
				os.WriteFile(grown, bytes.Join(lines[:min(n, len(lines))], nil), 0o600)
				if _, err := Archive(ctx, st, s); err != nil {
					t.Fatal(err)
				}
				if n >= len(lines) {
					break
				}
			}
			once := newStore(t)
			whole := Session{ID: "grown", Project: "/p", Transcript: path}
			res, err := Archive(ctx, once, whole)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := st.Chunks(ctx, "grown")
			b, _ := once.Chunks(ctx, "grown")
			if len(a) != len(b) || len(b) == 0 {
				t.Fatalf("%d chunks incrementally, %d at once", len(a), len(b))
			}
			for i := range a {
				if a[i].Key != b[i].Key || a[i].BodyHash() != b[i].BodyHash() || a[i].Summary != b[i].Summary {
					t.Fatalf("chunk %d differs: turn %d %q vs turn %d %q", i, a[i].Turn, a[i].Summary, b[i].Turn, b[i].Summary)
				}
			}
			f, _ := transcript.ReadFile(path, transcript.Cursor{})
			if turns := len(transcript.Turns(f.Records)); res.Turns != turns {
				t.Errorf("archived %d turns, the transcript has %d", res.Turns, turns)
			}
			// Archiving again reads only the last turn and writes nothing.
			again, err := Archive(ctx, once, whole)
			if err != nil || again.Written != 0 || again.Read >= int64(len(data)) {
				t.Errorf("second archive: %+v, %v", again, err)
			}
		})
	}
}

// Each long spotter session holds one compaction: its summary is archived
// as a searchable chunk of its own.
func TestCompactionSummaryIsArchived(t *testing.T) {
	st := newStore(t)
	path := spotterSessions(t)[0]
	if _, err := Archive(ctx, st, Session{ID: "s", Project: "/p", Transcript: path}); err != nil {
		t.Fatal(err)
	}
	chunks, _ := st.Chunks(ctx, "s")
	n := 0
	for _, c := range chunks {
		if c.Kind == ctxkeep.KindSummary {
			n++
			if len(c.Body) < 500 {
				t.Errorf("summary chunk of %d bytes", len(c.Body))
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d summary chunks, want 1", n)
	}
	hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "session continued previous conversation summary", Kind: ctxkeep.KindSummary})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search for the summary: %d hits, %v", len(hits), err)
	}
}

// A repository's .git/config is input: git diff --stat for the
// preservation notes must not run the programs it names.
func TestGitDiffStatRunsNothingTheRepositoryNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "monitor.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ntouch "+ran+"\n"), 0o700)
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "t@t"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o600)
	exec.Command("git", "-C", repo, "add", ".").Run()
	exec.Command("git", "-C", repo, "commit", "-qm", "one").Run()
	exec.Command("git", "-C", repo, "config", "core.fsmonitor", script).Run()
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("two\n"), 0o600)
	stat := gitDiffStat(ctx, repo, time.Minute)
	if !strings.Contains(stat, "a.txt") {
		t.Fatalf("diff stat = %q", stat)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("git ran the repository's core.fsmonitor program")
	}
}

// After Stop archived a one-prompt session, the next archive (PreCompact)
// reads only the session's last step, not its whole open turn.
func TestArchiveAgainReadsOnlyTheLastStep(t *testing.T) {
	path := realdata.File(t, "cc-sessions-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	st := newStore(t)
	s := Session{ID: "s", Project: "/p", Transcript: path}
	first, err := Archive(ctx, st, s)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Archive(ctx, st, s)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := st.Chunks(ctx, "s")
	last := cs[len(cs)-1]
	for i := len(cs) - 1; !last.Conversation(); i-- {
		last = cs[i]
	}
	t.Logf("first archive read %d bytes, the second %d (the last step, %d.%d)", first.Read, again.Read, last.Turn, last.Step)
	if again.Written != 0 || again.Read > 64<<10 || again.Read*20 > first.Read {
		t.Errorf("the second archive read %d of %d bytes and wrote %d chunks; want only the last step, nothing written", again.Read, first.Read, again.Written)
	}
}

// A step longer than one call may read (a response with many large
// results) is cut where the reading stopped and goes on as the next
// step: every call makes progress within its limit, and nothing read is
// lost.
func TestArchiveCutsAStepLongerThanACall(t *testing.T) {
	s := &session{t: t}
	s.prompt("read every log")
	var content []any
	for i := range 20 {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("r%02d", i), "name": "Bash", "input": map[string]any{"command": fmt.Sprintf("cat log%02d", i)}})
	}
	s.line(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "role": "assistant", "content": content}})
	for i := range 20 {
		s.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
			"tool_use_id": fmt.Sprintf("r%02d", i), "content": fmt.Sprintf("log%02d says %s", i, strings.Repeat("z", 10_000))}}}})
	}
	s.say("All twenty logs read.")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s.write(path)
	st := newStore(t)
	sess := Session{ID: "s", Project: "/p", Transcript: path, Limits: Limits{ReadBytes: 64 << 10, LineBytes: 32 << 10}}
	calls := 0
	res, err := ArchiveAll(ctx, st, sess, func(ArchiveResult) { calls++ })
	if err != nil || res.More || calls < 2 {
		t.Fatalf("ArchiveAll = %+v, %v after %d calls; want the end, over several calls", res, err, calls)
	}
	cs, _ := st.Chunks(ctx, "s")
	var all strings.Builder
	for _, c := range cs {
		all.WriteString(c.Body)
	}
	for i := range 20 {
		if !strings.Contains(all.String(), fmt.Sprintf("cat log%02d", i)) || !strings.Contains(all.String(), fmt.Sprintf("log%02d says", i)) {
			t.Errorf("call %d is not in the archive", i)
		}
	}
	if !strings.Contains(all.String(), "All twenty logs read.") || len(cs) < 3 {
		t.Errorf("%d chunks; want the long step cut in parts, and the answer after it", len(cs))
	}
}
