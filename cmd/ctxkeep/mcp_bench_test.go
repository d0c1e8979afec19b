package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// BenchmarkMCPSpawn measures what the client waits for when it starts
// ctxkeep's MCP server for a session: spawn to the reply to initialize;
// then one tools/call (show of an id that is not stored: the store opened,
// looked up and closed).
//
//	go test -run '^$' -bench MCPSpawn -benchtime 200x ./cmd/ctxkeep
func BenchmarkMCPSpawn(b *testing.B) {
	bin := testbin.Path(b)
	home := b.TempDir()
	env := []string{"CTXKEEP_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	migrate(b, bin, env)
	var starts, calls []time.Duration
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(bin, "mcp")
		cmd.Env = env
		in, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		roundTrip(b, in, lines, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		starts = append(starts, time.Since(start))
		fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		calls = append(calls, roundTrip(b, in, lines, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show","arguments":{"id":"abcdef"}}}`))
		in.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(median(starts).Microseconds())/1000, "initialize-ms")
	b.ReportMetric(float64(median(calls).Microseconds())/1000, "call-ms")
	b.ReportMetric(0, "ns/op")
}

// roundTrip sends one request and waits for its reply line.
func roundTrip(b *testing.B, in io.Writer, lines *bufio.Scanner, request string) time.Duration {
	start := time.Now()
	fmt.Fprintln(in, request)
	if !lines.Scan() {
		b.Fatalf("no reply to %s: %v", request, lines.Err())
	}
	return time.Since(start)
}
