package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

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
func BenchmarkHookSpawn(b *testing.B) {
	hook := testbin.Path(b)
	floor := filepath.Join(b.TempDir(), "floor")
	build := exec.Command("go", "build", "-o", floor, "./testdata/floor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build floor: %v\n%s", err, out)
	}
	post := readFile(b, "../../internal/hook/testdata/events/real/PostToolUse.Bash.json")
	stop := readFile(b, "../../internal/hook/testdata/events/real/Stop.json")
	home := b.TempDir()
	env := []string{"CTXKEEP_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	migrate := exec.Command(hook, "stats")
	migrate.Env = env
	if out, err := migrate.CombinedOutput(); err != nil {
		b.Fatalf("ctxkeep stats: %v\n%s", err, out)
	}
	programs := []struct {
		name    string
		argv    []string
		env     []string
		payload []byte
	}{
		{"floor", []string{floor}, env, post},
		{"hook", []string{hook, "hook"}, env, post},
		{"hook-disabled", []string{hook, "hook"}, append(env, "CTXKEEP_DISABLE=1"), post},
		{"hook-stop", []string{hook, "hook"}, env, stop}, // opens the index, ingests the journal
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
	b.ReportMetric(med[1]/med[0], "hook/floor")
	b.ReportMetric(med[2]/med[0], "disabled/floor")
	b.ReportMetric(0, "ns/op")
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
