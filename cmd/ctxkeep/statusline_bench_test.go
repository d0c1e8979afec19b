package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// BenchmarkStatusline measures `ctxkeep statusline` as the client runs
// it, a fresh process per call, on a synthetic transcript of 500 MB
// (CTXKEEP_BENCH_MB to change it) built in a temporary folder:
//
//   - first: no state yet; the transcript is read backwards from its end;
//   - repeated: one new response appended before each call, read from
//     the saved cursor;
//   - hook-exe-repeated: the same, through ctxkeep-hook (what install
//     registers);
//   - floor: a Go program that reads stdin and exits.
//
// go test -run '^$' -bench Statusline -benchtime 50x ./cmd/ctxkeep
func BenchmarkStatusline(b *testing.B) {
	bin := testbin.Path(b)
	floor := buildFloor(b)
	mb := 500
	if v, err := strconv.Atoi(os.Getenv("CTXKEEP_BENCH_MB")); err == nil && v > 0 {
		mb = v
	}
	home := b.TempDir()
	env := []string{"CTXKEEP_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	migrate(b, bin, env)
	session := "5e5a1d2c-0b7e-4f4a-9a51-3c2d1e0f9a8b"
	path := filepath.Join(home, session+".jsonl")
	size := syntheticTranscript(b, path, int64(mb)<<20)
	stdin := []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"model":{"id":"claude-opus-5-5"},"context_window":{"context_window_size":1000000}}`, session, path))
	state := filepath.Join(home, "watch", session+".status.json")

	hookExe := testbin.HookPath(b) // what install --statusline registers
	var first, repeated, hookRepeated, floors []time.Duration
	b.ResetTimer()
	for i := range b.N {
		os.Remove(state)
		first = append(first, timed(b, command(bin, env, stdin, "statusline", "--plain")))
		appendResponse(b, path, 1_000_000+i, 600_000+int64(i)*100)
		repeated = append(repeated, timed(b, command(bin, env, stdin, "statusline", "--plain")))
		appendResponse(b, path, 2_000_000+i, 600_000+int64(i)*100+50)
		hookRepeated = append(hookRepeated, timed(b, command(hookExe, env, stdin, "statusline", "--plain")))
		floors = append(floors, timed(b, command(floor, env, stdin)))
	}
	b.StopTimer()
	floorMs := float64(median(floors).Microseconds()) / 1000
	b.ReportMetric(float64(median(first).Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(median(repeated).Microseconds())/1000, "repeated-ms")
	b.ReportMetric(float64(median(hookRepeated).Microseconds())/1000, "hook-exe-repeated-ms")
	b.ReportMetric(float64(median(hookRepeated).Microseconds())/1000/floorMs, "hook-exe-repeated/floor")
	b.ReportMetric(floorMs, "floor-ms")
	b.ReportMetric(float64(size>>20), "transcript-MB")
	b.ReportMetric(0, "ns/op")

	out, err := command(bin, env, stdin, "statusline", "--plain").Output()
	if err != nil || !strings.Contains(string(out), "/1M") {
		b.Fatalf("statusline said %q, %v", out, err)
	}
}

func command(bin string, env []string, stdin []byte, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Stdin = env, bytes.NewReader(stdin)
	return cmd
}

func timed(b *testing.B, cmd *exec.Cmd) time.Duration {
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	return time.Since(start)
}

// syntheticTranscript writes a transcript of about size bytes shaped like
// a real long session: prompts, responses with growing usage, tool calls
// with results of a few to 60 KB, a compaction every 40 MB.
func syntheticTranscript(b *testing.B, path string, size int64) int64 {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	out := strings.Repeat("ok  \tgithub.com/example/pkg\t0.012s\n", 2000)
	n := 0
	for written < size {
		n++
		context := int64(20_000 + (n%400)*400)
		lines := []string{
			fmt.Sprintf(`{"type":"assistant","uuid":"a%d","isSidechain":false,"timestamp":"2026-11-21T10:00:00Z","message":{"id":"msg_%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./..."}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":500,"cache_read_input_tokens":%d,"output_tokens":80}}}`, n, n, n, context),
			fmt.Sprintf(`{"type":"user","uuid":"u%d","isSidechain":false,"timestamp":"2026-11-21T10:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}]}}`, n, n, out[:1000+(n*7919)%(len(out)-1000)]),
		}
		if n%1300 == 0 {
			lines = append(lines, `{"type":"system","subtype":"compact_boundary","isSidechain":false,"timestamp":"2026-11-21T11:00:00Z","compactMetadata":{"trigger":"auto","preTokens":967000,"postTokens":9000}}`)
		}
		for _, l := range lines {
			w.WriteString(l)
			w.WriteByte('\n')
			written += int64(len(l)) + 1
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return written
}

func appendResponse(b *testing.B, path string, n int, context int64) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, `{"type":"assistant","uuid":"a%d","isSidechain":false,"timestamp":"2026-11-21T12:00:00Z","message":{"id":"msg_%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":500,"cache_read_input_tokens":%d,"output_tokens":80}}}`+"\n", n, n, context)
}
