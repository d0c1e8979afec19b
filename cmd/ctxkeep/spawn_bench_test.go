package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// BenchmarkHookSpawn measures whole-process time, as the agent pays it: a
// fresh `ctxkeep hook` process per small PostToolUse event, against the
// floor of a Go program that only reads stdin and exits. A Stop event,
// which opens the index and moves the journal into it, is timed beside. Runs alternate
// between the programs so that both see the same machine; the medians and
// their ratio are reported.
//
//	go test -run '^$' -bench HookSpawn -benchtime 400x ./cmd/ctxkeep
//	CTXKEEP_BENCH_BASELINE=/tmp/ctxkeep-before go test -run '^$' -bench HookSpawn -benchtime 400x ./cmd/ctxkeep
func BenchmarkHookSpawn(b *testing.B) {
	hook := testbin.Path(b)
	floor := buildFloor(b)
	// The session's transcript is there, but does not hold the call's
	// line yet (the client writes it a little behind its hooks).
	transcript := filepath.Join(b.TempDir(), "session.jsonl")
	if err := os.WriteFile(transcript, readFile(b, "../../internal/hook/testdata/events/real/Stop.json"), 0o600); err != nil {
		b.Fatal(err)
	}
	post := withTranscript(b, readFile(b, "../../internal/hook/testdata/events/real/PostToolUse.Bash.json"), transcript)
	stop := readFile(b, "../../internal/hook/testdata/events/real/Stop.json")
	home := b.TempDir()
	env := []string{"CTXKEEP_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	migrate(b, hook, env)
	programs := []struct {
		name    string
		argv    []string
		env     []string
		payload []byte
	}{
		{"floor", []string{floor}, env, post},
		{"hook-exe", []string{testbin.HookPath(b), "hook"}, env, post}, // what install registers
		{"hook", []string{hook, "hook"}, env, post},                    // `ctxkeep hook`, as registered before
		{"hook-disabled", []string{hook, "hook"}, append(env, "CTXKEEP_DISABLE=1"), post},
		{"hook-stop", []string{hook, "hook"}, env, stop}, // opens the index, ingests the journal
	}
	// CTXKEEP_BENCH_BASELINE names another build of ctxkeep (an earlier
	// commit), run beside on the same events, in its own store.
	if base := os.Getenv("CTXKEEP_BENCH_BASELINE"); base != "" {
		benv := []string{"CTXKEEP_HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH")}
		migrate(b, base, benv)
		programs = append(programs, []struct {
			name    string
			argv    []string
			env     []string
			payload []byte
		}{
			{"baseline", []string{base, "hook"}, benv, post},
			{"baseline-disabled", []string{base, "hook"}, append(benv, "CTXKEEP_DISABLE=1"), post},
			{"baseline-stop", []string{base, "hook"}, benv, stop},
		}...)
	}
	times := make([][]time.Duration, len(programs))
	b.ResetTimer()
	for range b.N {
		for i, p := range programs {
			cmd := exec.Command(p.argv[0], p.argv[1:]...)
			cmd.Env, cmd.Stdin = p.env, bytes.NewReader(p.payload)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	b.StopTimer()
	med := make([]float64, len(programs))
	for i, p := range programs {
		med[i] = float64(median(times[i]).Microseconds()) / 1000
		b.ReportMetric(med[i], p.name+"-ms")
	}
	b.ReportMetric(med[1]/med[0], "hook-exe/floor")
	b.ReportMetric(med[2]/med[0], "hook/floor")
	b.ReportMetric(med[3]/med[0], "disabled/floor")
	b.ReportMetric(0, "ns/op")
}

// withTranscript is payload with its transcript_path set to path.
func withTranscript(b *testing.B, payload []byte, path string) []byte {
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		b.Fatal(err)
	}
	ev["transcript_path"] = path
	out, _ := json.Marshal(ev)
	return out
}

// buildFloor builds the floor: a Go program that reads stdin and exits,
// static like ctxkeep.
func buildFloor(b *testing.B) string {
	floor := filepath.Join(b.TempDir(), "floor")
	build := exec.Command("go", "build", "-o", floor, "./testdata/floor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build floor: %v\n%s", err, out)
	}
	return floor
}

// migrate prepares the store of env's CTXKEEP_HOME, as install does. An
// earlier build given as the baseline may refuse to install a binary not
// named ctxkeep; it prepared the store with any command (stats).
func migrate(b testing.TB, bin string, env []string) {
	cmd := exec.Command(bin, "install", "--plugin", b.TempDir()) // no settings file touched
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		old := exec.Command(bin, "stats")
		old.Env = env
		if more, err2 := old.CombinedOutput(); err2 != nil {
			b.Fatalf("ctxkeep install --plugin: %v\n%s\nctxkeep stats: %v\n%s", err, out, err2, more)
		}
	}
}

func readFile(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkHookSwap1MB measures whole-process time of a PostToolUse that
// stores a new 1 MB Bash output: decode, hash, compress, durable write,
// readable copy, index row, what the model sees instead, reply. Each run's
// output differs, so nothing is deduplicated. Two outputs: a passing
// `go test -v` (which its condenser folds) and a server log (no condenser:
// the swap view). Runs alternate with the floor, a Go program that reads
// the same payload from stdin and exits, so that both see the same
// machine; the medians, their ratio, the mean CPU time (user and
// system: what load on a shared machine changes least) and the minor page
// faults (fresh memory touched) are reported.
//
//	go test -run '^$' -bench HookSwap1MB -benchtime 60x ./cmd/ctxkeep
func BenchmarkHookSwap1MB(b *testing.B) {
	for _, kind := range []string{"gotest", "log"} {
		b.Run(kind, func(b *testing.B) { benchSwap(b, kind, 1<<20) })
	}
}

// BenchmarkHookSwap20KB is BenchmarkHookSwap1MB for a 20 KB server log
// (a common large output: over the Bash threshold, so swapped out).
//
//	go test -run '^$' -bench HookSwap20KB -benchtime 200x ./cmd/ctxkeep
func BenchmarkHookSwap20KB(b *testing.B) { benchSwap(b, "log", 20<<10) }

func benchSwap(b *testing.B, kind string, size int) {
	floor := buildFloor(b)
	type program struct {
		name               string
		argv, env          []string
		times, cpu, faults []time.Duration // page faults, kept as durations to reuse median
	}
	hookEnv := func(bin string) []string {
		env := []string{"CTXKEEP_HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH")}
		migrate(b, bin, env)
		return env
	}
	programs := []*program{{name: "floor", argv: []string{floor}}, {name: "hook", argv: []string{testbin.Path(b), "hook"}, env: hookEnv(testbin.Path(b))},
		{name: "hook-exe", argv: []string{testbin.HookPath(b), "hook"}, env: hookEnv(testbin.Path(b))}}
	// CTXKEEP_BENCH_BASELINE names another build of ctxkeep (an earlier
	// commit) to run beside, on the same payloads: before and after in
	// one run, on the same machine.
	if base := os.Getenv("CTXKEEP_BENCH_BASELINE"); base != "" {
		programs = append(programs, &program{name: "baseline", argv: []string{base, "hook"}, env: hookEnv(base)})
	}
	projects := filepath.Join(b.TempDir(), "projects", "-p")
	os.MkdirAll(projects, 0o700)
	session := "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10"
	payloads := make([][]byte, b.N)
	for i := range b.N {
		payloads[i] = swapPayload(kind, i, session, filepath.Join(projects, session+".jsonl"), size)
	}
	b.ResetTimer()
	for i := range b.N {
		for _, p := range programs {
			cmd := exec.Command(p.argv[0], p.argv[1:]...)
			cmd.Env, cmd.Stdin = p.env, bytes.NewReader(payloads[i])
			start := time.Now()
			out, err := cmd.Output()
			p.times = append(p.times, time.Since(start))
			p.cpu = append(p.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			p.faults = append(p.faults, time.Duration(minorFaults(cmd)))
			if err != nil || p.name != "floor" && !bytes.Contains(out, []byte("updatedToolOutput")) {
				b.Fatalf("%s run %d: %v, stdout %.200q", p.name, i, err, out)
			}
		}
	}
	b.StopTimer()
	floorMs := float64(median(programs[0].times).Microseconds()) / 1000
	for _, p := range programs {
		ms := float64(median(p.times).Microseconds()) / 1000
		prefix := p.name + "-"
		if p.name == "hook" {
			prefix = ""
		}
		b.ReportMetric(ms, prefix+"median-ms")
		b.ReportMetric(float64(mean(p.cpu).Microseconds())/1000, prefix+"cpu-ms")
		b.ReportMetric(float64(median(p.faults)), prefix+"faults")
		if p.name != "floor" {
			b.ReportMetric(ms/floorMs, p.name+"/floor")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// mean is the average of d: CPU times are counted in ticks, and only their
// mean over many runs says something.
func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(max(len(d), 1))
}

// minorFaults is how many minor page faults a finished process took: the
// pages of fresh memory it touched.
func minorFaults(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Minflt
	}
	return 0
}

// swapPayload is a PostToolUse event for a Bash output of size bytes
// unique to i: a passing go test -v (kind "gotest") or a server log ("log").
func swapPayload(kind string, i int, session, transcript string, size int) []byte {
	var out strings.Builder
	fmt.Fprintf(&out, "run %d\n", i)
	command := "go test -v ./..."
	for n := 0; out.Len() < size; n++ {
		if kind == "log" {
			command = "cat server.log"
			fmt.Fprintf(&out, "2026-11-21T10:%02d:%02d.%03dZ INFO request id=%d-%d path=/api/v1/items/%d served in %dms\n", n/60%60, n%60, n%1000, i, n, n%977, n%37)
			continue
		}
		fmt.Fprintf(&out, "=== RUN   TestCase%d_%d\n--- PASS: TestCase%d_%d (0.00s)\n", i, n, i, n)
	}
	ev := map[string]any{
		"session_id": session, "transcript_path": transcript, "cwd": "/p", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
		"tool_use_id":   fmt.Sprintf("toolu_%06d", i),
	}
	data, _ := json.Marshal(ev)
	return data
}

// BenchmarkHookPreCompact measures whole-process time of PreCompact on a
// real 3 MB transcript that Stop has already archived: open the index,
// archive what is new since the cursor, fold the working state, print the
// preservation notes. The first Stop (the whole archive, cold) is
// reported beside.
//
//	go test -run '^$' -bench HookPreCompact -benchtime 40x ./cmd/ctxkeep
//	CTXKEEP_BENCH_BASELINE=/tmp/ctxkeep-before go test -run '^$' -bench HookPreCompact -benchtime 40x ./cmd/ctxkeep
func BenchmarkHookPreCompact(b *testing.B) {
	const session = "4d5611e5-241a-462a-8d15-5122611a9569" // 3.16 MB, 1,512 lines
	data, err := os.ReadFile(realdata.File(b, "cc-sessions-spotter/"+session+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	// CTXKEEP_BENCH_BASELINE names another build of ctxkeep (an earlier
	// commit), run alternately on the same transcript in its own home:
	// before and after in one run, on the same machine.
	type build struct {
		name, hook, transcript string
		env                    []string
		first                  time.Duration
		times                  []time.Duration
	}
	builds := []*build{{name: "", hook: testbin.Path(b)}}
	if base := os.Getenv("CTXKEEP_BENCH_BASELINE"); base != "" {
		builds = append(builds, &build{name: "baseline-", hook: base})
	}
	project := b.TempDir()
	for _, x := range builds {
		home := b.TempDir()
		x.env = []string{"CTXKEEP_HOME=" + home, "PATH=" + os.Getenv("PATH")}
		migrate(b, x.hook, x.env)
		x.transcript = filepath.Join(home, "projects", "-p", session+".jsonl")
		os.MkdirAll(filepath.Dir(x.transcript), 0o700)
		if err := os.WriteFile(x.transcript, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	event := func(x *build, name string) []byte {
		ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": x.transcript, "cwd": project,
			"hook_event_name": name, "trigger": "auto", "custom_instructions": "", "stop_hook_active": false})
		return ev
	}
	run := func(x *build, payload []byte) ([]byte, time.Duration) {
		cmd := exec.Command(x.hook, "hook")
		cmd.Env, cmd.Stdin = x.env, bytes.NewReader(payload)
		start := time.Now()
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		return out, time.Since(start)
	}
	for _, x := range builds {
		_, x.first = run(x, event(x, "Stop"))
	}
	b.ResetTimer()
	for range b.N {
		for _, x := range builds {
			out, took := run(x, event(x, "PreCompact"))
			if !bytes.Contains(out, []byte("ctxkeep preservation notes")) {
				b.Fatalf("PreCompact printed %.300q", out)
			}
			x.times = append(x.times, took)
		}
	}
	b.StopTimer()
	for _, x := range builds {
		b.ReportMetric(float64(x.first.Microseconds())/1000, x.name+"first-stop-ms")
		b.ReportMetric(float64(median(x.times).Microseconds())/1000, x.name+"precompact-ms")
	}
	b.ReportMetric(0, "ns/op")
}
