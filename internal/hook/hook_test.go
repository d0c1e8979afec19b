package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/dirs"
	"github.com/ctxkeep/ctxkeep/internal/journal"
	"github.com/ctxkeep/ctxkeep/internal/logfile"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

const session = "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10"

// fixture is one isolated CTXKEEP_HOME.
type fixture struct {
	t        *testing.T
	home     string
	vars     map[string]string
	backends *app.Backends // nil: the local store on disk (storetest.Backends)
}

func newFixture(t *testing.T) *fixture {
	home := t.TempDir()
	return &fixture{t: t, home: home, vars: map[string]string{
		"CTXKEEP_HOME": home, "CLAUDE_PROJECT_DIR": t.TempDir(), "AI_AGENT": "claude-code_2-1-330_harness",
	}}
}

func (f *fixture) env() app.Env {
	var environ []string
	for k, v := range f.vars {
		environ = append(environ, k+"="+v)
	}
	backends := storetest.Backends()
	if f.backends != nil {
		backends = *f.backends
	}
	return app.Env{
		Getenv:   func(k string) string { return f.vars[k] },
		Environ:  environ,
		Getwd:    func() (string, error) { return f.home, nil },
		Now:      time.Now,
		Backends: backends,
	}
}

func (f *fixture) run(stdin []byte, table map[string]handler) string {
	var out bytes.Buffer
	run(time.Now(), f.env(), bytes.NewReader(stdin), &out, table)
	return out.String()
}

func (f *fixture) dirs() dirs.Dirs {
	d, _ := dirs.Resolve(func(k string) string { return f.vars[k] })
	return d
}

// openStore opens the fixture's store (migrating it with migrate, as the
// CLI does), closed when the test ends.
func (f *fixture) openStore(t testing.TB, mode store.Mode) *store.Store {
	st, err := store.Open(context.Background(), f.dirs().IndexDB(), f.dirs().Blobs(), mode, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (f *fixture) journal(session string) []ctxkeep.Event {
	path, err := journal.Path(f.dirs().Journals(), session)
	if err != nil {
		f.t.Fatal(err)
	}
	var recs []ctxkeep.Event
	journal.Read(path, 0, func(r ctxkeep.Event) error { recs = append(recs, r); return nil })
	return recs
}

func (f *fixture) log() string {
	entries, _ := logfile.Since(f.dirs().Log(), time.Time{}, 100)
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Message + "\n")
	}
	return b.String()
}

func golden(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func goldenFiles(t testing.TB) []string {
	hand, _ := filepath.Glob("testdata/events/*.json")
	real, _ := filepath.Glob("testdata/events/real/*.json")
	if len(hand) < 15 || len(real) < 15 {
		t.Fatalf("golden events: %d hand-written, %d real", len(hand), len(real))
	}
	return append(hand, real...)
}

func TestGoldenEventsAreRecorded(t *testing.T) {
	for _, file := range goldenFiles(t) {
		t.Run(strings.TrimPrefix(file, "testdata/events/"), func(t *testing.T) {
			f := newFixture(t)
			payload, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want Event
			if err := json.Unmarshal(payload, &want); err != nil {
				t.Fatal(err)
			}
			if out := f.run(payload, map[string]handler{}); out != "" {
				t.Fatalf("stdout = %q", out)
			}
			recs := f.journal(want.SessionID) // Bytes: the object, without the newline after it
			if len(recs) != 1 {
				t.Fatalf("journal has %d records; log: %s", len(recs), f.log())
			}
			r := recs[0]
			if r.Event != want.HookEventName || r.Tool != want.ToolName || r.Agent != want.AgentID || r.Outcome != ctxkeep.OK ||
				r.Bytes != int64(len(bytes.TrimRight(payload, "\n"))) || r.Client != "2.1.330" || r.Cwd != want.Cwd || r.Transcript != want.TranscriptPath {
				t.Errorf("record = %+v", r)
			}
			if r.Cwd == "" || r.Transcript == "" || (strings.Contains(file, "ToolUse") && r.Tool == "") {
				t.Errorf("golden payload lacks fields: %+v", r)
			}
		})
	}
}

func TestBadInputFailsOpen(t *testing.T) {
	valid := golden(t, "PostToolUse.Bash.json")
	cases := map[string]struct {
		stdin []byte
		log   string
	}{
		"empty":            {nil, "empty payload"},
		"whitespace":       {[]byte(" \n"), "empty payload"},
		"garbage":          {[]byte("\x00\xffnot json"), "bad payload"},
		"truncated":        {valid[:len(valid)/2], "bad payload"},
		"array":            {[]byte(`[1,2]`), "bad payload"},
		"no event name":    {[]byte(`{"session_id":"abc"}`), "no hook_event_name"},
		"traversal id":     {[]byte(`{"session_id":"../../etc","hook_event_name":"Stop"}`), "invalid session id"},
		"wrong field type": {[]byte(`{"session_id":"abc","hook_event_name":"Stop","stop_hook_active":"yes"}`), "bad payload"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			if out := f.run(tc.stdin, handlers); out != "" {
				t.Fatalf("stdout = %q", out)
			}
			if log := f.log(); !strings.Contains(log, tc.log) {
				t.Fatalf("log = %q, want %q", log, tc.log)
			}
			if ids, _ := journal.Sessions(f.dirs().Journals()); len(ids) != 0 {
				t.Fatalf("journal written for bad input: %v", ids)
			}
		})
	}
}

func TestOversizedPayloadIsNotReadWhole(t *testing.T) {
	f := newFixture(t)
	f.vars["CTXKEEP_LIMITS_HOOK_INPUT_BYTES"] = "64KiB"
	r := &countingReader{n: 100 << 20}
	var out bytes.Buffer
	run(time.Now(), f.env(), r, &out, handlers)
	if out.Len() != 0 || !strings.Contains(f.log(), "over limits.hook_input_bytes") {
		t.Fatalf("stdout %q, log %q", out.String(), f.log())
	}
	if r.read > 64<<10+1 {
		t.Fatalf("read %d bytes of a 100 MB payload", r.read)
	}
}

// countingReader serves n bytes of '{' and counts what was read.
type countingReader struct{ n, read int }

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, errors.New("EOF")
	}
	k := min(len(p), r.n-r.read)
	for i := range k {
		p[i] = '{'
	}
	r.read += k
	return k, nil
}

func TestHandlerFailuresFailOpen(t *testing.T) {
	payload := golden(t, "Stop.json")
	cases := map[string]struct {
		h       handler
		outcome string
		log     string
	}{
		"error": {func(context.Context, *Call) (*Reply, error) {
			return &Reply{SystemMessage: "half done"}, errors.New("disk on fire")
		}, ctxkeep.Failed, "disk on fire"},
		"panic": {func(context.Context, *Call) (*Reply, error) {
			var m map[string]int
			m["x"] = 1
			return nil, nil
		}, ctxkeep.Panicked, "assignment to entry in nil map"},
		"deadline": {func(ctx context.Context, c *Call) (*Reply, error) {
			time.Sleep(time.Hour)
			return &Reply{SystemMessage: "too late"}, nil
		}, ctxkeep.TimedOut, "deadline of 50ms passed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.vars["CTXKEEP_DEADLINE_STOP"] = "50ms"
			start := time.Now()
			if out := f.run(payload, map[string]handler{"Stop": tc.h}); out != "" {
				t.Fatalf("stdout = %q", out)
			}
			if time.Since(start) > 30*time.Second {
				t.Fatal("the hook waited for its handler")
			}
			recs := f.journal(session)
			if len(recs) != 1 || recs[0].Outcome != tc.outcome {
				t.Fatalf("journal = %+v", recs)
			}
			if log := f.log(); !strings.Contains(log, tc.log) || !strings.Contains(log, "session="+session) {
				t.Fatalf("log = %q", log)
			}
		})
	}
}

func TestReplyIsWritten(t *testing.T) {
	f := newFixture(t)
	out := f.run(golden(t, "UserPromptSubmit.json"), map[string]handler{
		"UserPromptSubmit": func(_ context.Context, c *Call) (*Reply, error) {
			return &Reply{Specific: &SpecificOutput{HookEventName: c.Event.HookEventName, AdditionalContext: "a < b & c"}}, nil
		},
	})
	want := `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a \u003c b \u0026 c"}}` + "\n"
	if out != want {
		t.Fatalf("stdout = %q, want %q", out, want)
	}
	out = f.run(golden(t, "PreCompact.manual.json"), map[string]handler{
		"PreCompact": func(context.Context, *Call) (*Reply, error) { return &Reply{Text: "Keep the task."}, nil },
	})
	if out != "Keep the task." {
		t.Fatalf("plain text reply = %q", out)
	}
}

func TestDisable(t *testing.T) {
	t.Run("env", func(t *testing.T) {
		f := newFixture(t)
		f.vars["CTXKEEP_DISABLE"] = "1"
		r := &countingReader{n: 1 << 20}
		var out bytes.Buffer
		run(time.Now(), f.env(), r, &out, map[string]handler{"Stop": panicking})
		if out.Len() != 0 || r.read != 0 {
			t.Fatalf("stdout %q, read %d bytes", out.String(), r.read)
		}
		if _, err := os.Stat(f.dirs().Journals()); !os.IsNotExist(err) {
			t.Fatal("journal written while disabled")
		}
	})
	t.Run("config", func(t *testing.T) {
		f := newFixture(t)
		os.WriteFile(filepath.Join(f.home, "config.toml"), []byte("disable = true\n"), 0o600)
		if out := f.run(golden(t, "Stop.json"), map[string]handler{"Stop": panicking}); out != "" {
			t.Fatal(out)
		}
		if recs := f.journal(session); len(recs) != 0 {
			t.Fatalf("recorded while disabled: %v", recs)
		}
	})
}

func panicking(context.Context, *Call) (*Reply, error) { panic("must not run") }

func TestBadConfigFailsOpen(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.vars["CLAUDE_PROJECT_DIR"], ".ctxkeep.toml"), []byte("[threshold]\nBash = \"x\"\n"), 0o600)
	if out := f.run(golden(t, "Stop.json"), map[string]handler{"Stop": panicking}); out != "" {
		t.Fatal(out)
	}
	if log := f.log(); !strings.Contains(log, "threshold.Bash") {
		t.Fatalf("log = %q", log)
	}
}

func TestUnknownEventIsRecordedOnly(t *testing.T) {
	f := newFixture(t)
	if out := f.run(golden(t, "CwdChanged.json"), handlers); out != "" {
		t.Fatal(out)
	}
	if recs := f.journal(session); len(recs) != 1 || recs[0].Event != "CwdChanged" {
		t.Fatalf("journal = %+v", recs)
	}
}

func TestStopIndexesTheJournal(t *testing.T) {
	f := newFixture(t)
	db, err := store.Open(context.Background(), f.dirs().IndexDB(), f.dirs().Blobs(), store.Migrate, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"UserPromptSubmit.json", "PreToolUse.Bash.json", "PostToolUse.Bash.json", "Stop.json"} {
		f.run(golden(t, name), handlers)
	}
	stats, err := db.Stats(context.Background(), session)
	if err != nil || len(stats) != 1 || stats[0].Events != 3 || stats[0].Client != "2.1.330" {
		t.Fatalf("after Stop: %+v %v; log %s", stats, err, f.log())
	}
}

func TestStopWithoutIndexFailsOpen(t *testing.T) {
	f := newFixture(t)
	if out := f.run(golden(t, "Stop.json"), handlers); out != "" {
		t.Fatal(out)
	}
	if !strings.Contains(f.log(), "does not exist") {
		t.Fatalf("log = %q", f.log())
	}
	if _, err := os.Stat(f.dirs().IndexDB()); !os.IsNotExist(err) {
		t.Fatal("the hook created the index")
	}
	if recs := f.journal(session); len(recs) != 1 || recs[0].Outcome != ctxkeep.Failed {
		t.Fatalf("journal = %+v", recs)
	}
}

func TestClientVersion(t *testing.T) {
	for in, want := range map[string]string{
		"claude-code_2-1-330_harness": "2.1.330",
		"claude-code_2-1-330_agent":   "2.1.330",
		"claude-code_2-0-5":           "2.0.5",
		"codex":                       "",
		"":                            "",
	} {
		if got := ClientVersion(in); got != want {
			t.Errorf("ClientVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, file := range goldenFiles(f) {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`{"session_id":"../x","hook_event_name":"Stop"}`))
	f.Add([]byte(`{"session_id":"a","hook_event_name":"Stop","custom_instructions":null}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := decode(payload)
		if err != nil {
			return
		}
		if ev.HookEventName == "" || journal.ValidSessionID(ev.SessionID) != nil {
			t.Fatalf("decode accepted %+v", ev)
		}
		if strings.ContainsAny(ev.SessionID, `/\`) {
			t.Fatalf("session id with a separator: %q", ev.SessionID)
		}
	})
}
