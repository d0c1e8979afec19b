package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// clientWriter edits a settings file the way Claude Code does for its user
// settings: it takes the lock folder <file>.lock (npm's proper-lockfile),
// reads the file, adds one key, and renames a new file over it. It waits
// for the lock as long as it takes (the client waits 500 ms, then writes
// without it: see fileLock), so that a lost key can only be ctxkeep's fault.
type clientWriter struct {
	path   string
	locked bool // take the client's lock; false: a writer that takes none
}

// add sets key in the file, under the lock when w.locked.
func (w clientWriter) add(key string) error {
	if w.locked {
		lock := w.path + ".lock"
		for {
			err := os.Mkdir(lock, 0o755)
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrExist) {
				return err
			}
			time.Sleep(100 * time.Microsecond)
		}
		defer os.Remove(lock)
	}
	doc := map[string]any{}
	data, err := os.ReadFile(w.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("the writer read a torn or malformed file: %v", err)
		}
	}
	doc[key] = true
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.writer-%s", w.path, key)
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, w.path)
}

// writerKeys counts the keys the writer added that the file still holds,
// or a copy ctxkeep kept beside it when two versions met
// (fsx.ErrConflictKept).
func writerKeys(t testing.TB, path string) int {
	t.Helper()
	copies, _ := filepath.Glob(path + ".ctxkeep-conflict-*")
	keys := map[string]bool{}
	for _, p := range append([]string{path}, copies...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc := map[string]json.RawMessage{}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v\n%s", p, err, data)
		}
		for k := range doc {
			if strings.HasPrefix(k, "writer-") {
				keys[k] = true
			}
		}
	}
	return len(keys)
}

// While ctxkeep installs and uninstalls over and over, the client keeps
// writing settings of its own (an "always allow", a model change): not one
// of its writes may be lost, and every install must land.
func TestApplyFileLosesNoConcurrentWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, userSettings, 0o600)
	w := clientWriter{path: path, locked: true}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var written atomic.Int64
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if werr = w.add(fmt.Sprintf("writer-%05d", written.Load())); werr != nil {
				return
			}
			written.Add(1)
			time.Sleep(time.Millisecond) // a client writes now and then, not in a loop without end
		}
	}()
	// Both sides edit many times, whichever is the faster.
	rounds := 0
	for ; rounds < 40 || written.Load() < 200; rounds++ {
		edit, what := install, "install"
		if rounds%2 == 1 {
			edit, what = RemoveHooks, "uninstall"
		}
		res, err := ApplyFile(path, edit, ApplyOptions{})
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("%s %d: %v", what, rounds, err)
		}
		if res.Backup != "" {
			os.Remove(res.Backup)
		}
	}
	// A last install, checked: the writer's rewrites must not drop it either
	// (the writer takes the lock, so it reads what ctxkeep wrote).
	if _, err := ApplyFile(path, install, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	if got, want := writerKeys(t, path), int(written.Load()); got != want {
		t.Errorf("the file holds %d of the writer's %d keys: %d lost", got, want, want-got)
	}
	data, _ := os.ReadFile(path)
	if found, err := FindHooks(data); err != nil || len(found) != len(testReg.Hooks) {
		t.Errorf("after the last install: %d of ctxkeep's hooks (%v)", len(found), err)
	}
	t.Logf("%d rounds of ctxkeep, %d writes of the client", rounds+1, written.Load())
}

// BenchmarkApplyFileLocklessWriter measures what the lock cannot give: a
// writer that takes no lock (the client writing project or local
// settings) can only lose a write that lands between ctxkeep's last check
// and its rename. It reports the writer's writes and those lost, over 100
// installs and uninstalls per iteration.
func BenchmarkApplyFileLocklessWriter(b *testing.B) {
	var lost, writes, conflicts int
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(userSettings), 0o600); err != nil {
			b.Fatal(err)
		}
		w := clientWriter{path: path}
		stop := make(chan struct{})
		done := make(chan int)
		go func() {
			n := 0
			for ; ; n++ {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				if err := w.add(fmt.Sprintf("writer-%05d", n)); err != nil {
					panic(err)
				}
			}
		}()
		for i := range 100 {
			edit := install
			if i%2 == 1 {
				edit = RemoveHooks
			}
			_, err := ApplyFile(path, edit, ApplyOptions{NoBackup: true})
			if errors.Is(err, fsx.ErrConflictKept) {
				conflicts++
			} else if err != nil && !errors.Is(err, ErrChangedMeanwhile) {
				b.Fatal(err)
			}
		}
		close(stop)
		n := <-done
		writes, lost = writes+n, lost+n-writerKeys(b, path)
	}
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
	b.ReportMetric(float64(lost)/float64(b.N), "lost/op")
	b.ReportMetric(float64(conflicts)/float64(b.N), "conflicts/op")
}
