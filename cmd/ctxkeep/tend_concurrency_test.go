package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// TestPruneAndCheckWhileHooksWrite runs 8 workers firing PostToolUse hooks
// (real processes) that store large outputs, while `ctxkeep prune` and
// `ctxkeep check` run over and over, and old entries holding the very same
// outputs keep being added for prune to remove: the race in which a hook
// finds its content already stored while prune frees it. Nothing may be
// lost (every output a hook replaced by a view comes back exactly), no
// check may see a row without its blob, and none is left at the end.
func TestPruneAndCheckWhileHooksWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns hundreds of processes")
	}
	const workers, perWorker = 8, 30
	bin := testbin.Path(t)
	home, projects := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "CTXKEEP_HOME="+home, "CTXKEEP_DISABLE=", "CTXKEEP_WRAPPER_ENABLED=false", "CTXKEEP_WRAPPER_LEARN=false")
	run := func(stdin []byte, args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdin = env, bytes.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	// install prepares the store (a plugin folder: no settings file is
	// touched); commands that only read leave an empty home as it is.
	if _, stderr, err := run(nil, "install", "--plugin", t.TempDir()); err != nil {
		t.Fatal(err, stderr)
	}
	outputs := make([]string, 6) // plus a line naming the call: each output is new
	for i := range outputs {
		outputs[i] = strings.Repeat(fmt.Sprintf("output %d: a line that is long enough ... ok\n", i), 300)
	}

	seeder, err := store.Open(context.Background(), filepath.Join(home, "index.db"), filepath.Join(home, "blobs"), store.Existing, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer seeder.Close()

	ctx, stop := context.WithCancel(context.Background())
	var background sync.WaitGroup
	var seeded, prunes, checks atomic.Int64
	errs := make(chan error, 1000)
	background.Add(2)
	go func() {
		defer background.Done()
		for ctx.Err() == nil {
			if _, stderr, err := run(nil, "prune"); err != nil {
				errs <- fmt.Errorf("prune: %v: %s", err, stderr)
			}
			prunes.Add(1)
		}
	}()
	go func() {
		defer background.Done()
		for ctx.Err() == nil {
			out, stderr, err := run(nil, "check", "--json")
			checks.Add(1)
			if err != nil {
				errs <- fmt.Errorf("check during the run: %v: %s%s", err, out, stderr)
			}
		}
	}()

	type call struct {
		session, toolUseID, output string
		viewed                     bool
	}
	calls := make([][]call, workers)
	var hooks sync.WaitGroup
	for w := range workers {
		hooks.Add(1)
		go func() {
			defer hooks.Done()
			session := fmt.Sprintf("live-%d", w)
			for i := range perWorker {
				c := call{session: session, toolUseID: fmt.Sprintf("toolu_%d_%d", w, i)}
				c.output = outputs[(w+i)%len(outputs)] + fmt.Sprintf("by %s\n", c.toolUseID)
				// A month-old entry already holds this output: prune frees
				// its blob while the hook finds it stored and reuses it.
				if err := seedOld(ctx, seeder, c.output, c.toolUseID); err != nil {
					errs <- err
				} else {
					seeded.Add(1)
				}
				payload, _ := json.Marshal(map[string]any{
					"session_id": session, "transcript_path": filepath.Join(projects, "-p", session+".jsonl"), "cwd": "/p",
					"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": c.toolUseID,
					"tool_input":    map[string]any{"command": "make"},
					"tool_response": map[string]any{"stdout": c.output, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
				})
				out, stderr, err := run(payload, "hook")
				if err != nil || stderr != "" {
					errs <- fmt.Errorf("hook %s: %v: %s", c.toolUseID, err, stderr)
				}
				c.viewed = strings.Contains(out, "updatedToolOutput")
				calls[w] = append(calls[w], c)
			}
		}()
	}
	hooks.Wait()
	stop()
	background.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	viewed := 0
	for _, cs := range calls {
		for _, c := range cs {
			if !c.viewed {
				continue // failed open: the model got the original
			}
			viewed++
			got, stderr, err := run(nil, "show", swap.EntryID(c.session, c.toolUseID))
			if err != nil || got != c.output {
				t.Errorf("%s: the model saw a view, but show gives %d bytes (want %d): %v %s", c.toolUseID, len(got), len(c.output), err, stderr)
			}
		}
	}
	out, stderr, err := run(nil, "check", "--json")
	var rep struct {
		OK     bool         `json:"ok"`
		Report store.Report `json:"report"`
	}
	if jerr := json.Unmarshal([]byte(out), &rep); err != nil || jerr != nil || !rep.OK || len(rep.Report.Missing)+len(rep.Report.Dangling) > 0 {
		t.Fatalf("final check: %v %v\n%s%s", err, jerr, out, stderr)
	}
	t.Logf("%d hook calls, %d replaced by a view; %d old entries seeded, %d prunes, %d checks meanwhile",
		workers*perWorker, viewed, seeded.Load(), prunes.Load(), checks.Load())
	if viewed < workers*perWorker/2 || prunes.Load() == 0 || checks.Load() == 0 {
		t.Fatalf("the race was not exercised")
	}
}

// seedOld adds a month-old, unpinned entry holding output: expired, for
// the next prune to remove.
func seedOld(ctx context.Context, st *store.Store, output, tag string) error {
	e := ctxkeep.Entry{ID: swap.EntryID("old", tag), SessionID: "old", Tool: "Bash", CreatedAt: time.Now().Add(-30 * 24 * time.Hour)}
	if _, err := st.PutEntry(ctx, e, []byte(output)); err != nil && !errors.Is(err, ctxkeep.ErrNotFound) {
		return fmt.Errorf("seed: %w", err)
	}
	return nil
}
