package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// TestConcurrentHooks runs 16 processes that each fire 200 hook events at
// four shared sessions, Stop events (which index the journal) included:
// every event must be recorded and none may surface an error. What it
// asserts is that nothing is lost, not that anything is fast: the
// deadlines are raised far above what a loaded machine needs, so that a
// slow hook is not a failure here (BenchmarkHookSpawn measures speed).
func TestConcurrentHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 3200 processes")
	}
	const workers, perWorker, sessions = 16, 200, 4
	bin := testbin.Path(t)
	home := t.TempDir()
	env := append(os.Environ(), "CTXKEEP_HOME="+home, "CTXKEEP_DISABLE=", "CTXKEEP_WRAPPER_ENABLED=false")
	env = append(env, generousDeadlines...)
	ctxkeep := func(stdin []byte, args ...string) ([]byte, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdin = env, bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil && stderr.Len() > 0 {
			err = fmt.Errorf("stderr: %s", stderr.String())
		}
		return out, err
	}
	// install prepares the store (a plugin folder: no settings file is
	// touched); commands that only read leave an empty home as it is.
	if _, err := ctxkeep(nil, "install", "--plugin", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	events := goldenEvents(t)

	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				ev := maps.Clone(events[(w+i)%len(events)])
				ev["session_id"] = fmt.Sprintf("session-%d", (w+i)%sessions)
				payload, _ := json.Marshal(ev)
				out, err := ctxkeep(payload, "hook")
				if err != nil || len(out) > 0 {
					errs <- fmt.Errorf("worker %d event %d (%s): err %v, stdout %q", w, i, ev["hook_event_name"], err, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	out, err := ctxkeep(nil, "stats", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Sessions []struct {
			ID       string `json:"session_id"`
			Events   int    `json:"events"`
			Failures int    `json:"failures"`
		} `json:"sessions"`
		Bad int `json:"bad_journal_lines"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range report.Sessions {
		total += s.Events
		if s.Failures != 0 {
			t.Errorf("session %s: %d hook calls failed open", s.ID, s.Failures)
		}
	}
	if len(report.Sessions) != sessions || total != workers*perWorker || report.Bad != 0 {
		t.Fatalf("recorded %d events in %d sessions (%d bad lines), want %d in %d", total, len(report.Sessions), report.Bad, workers*perWorker, sessions)
	}
	if log, err := os.ReadFile(filepath.Join(home, "ctxkeep.log")); err == nil {
		t.Fatalf("the log has entries:\n%s", log)
	}
}

// generousDeadlines raise every hook's deadline for tests that assert
// what happened, not how fast.
var generousDeadlines = []string{
	"CTXKEEP_DEADLINE_SESSIONSTART=5m", "CTXKEEP_DEADLINE_USERPROMPTSUBMIT=5m", "CTXKEEP_DEADLINE_PRETOOLUSE=5m",
	"CTXKEEP_DEADLINE_POSTTOOLUSE=5m", "CTXKEEP_DEADLINE_POSTTOOLUSEFAILURE=5m", "CTXKEEP_DEADLINE_PRECOMPACT=5m",
	"CTXKEEP_DEADLINE_STOP=5m", "CTXKEEP_DEADLINE_SUBAGENTSTOP=5m", "CTXKEEP_DEADLINE_SESSIONEND=5m",
}

// goldenEvents loads the golden hook payloads of the events ctxkeep handles.
func goldenEvents(t *testing.T) []map[string]any {
	files, err := filepath.Glob("../../internal/hook/testdata/events/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden events: %v", err)
	}
	var out []map[string]any
	for _, f := range files {
		if strings.Contains(f, "CwdChanged") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ev map[string]any
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}
