package redact

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// buildLog is about 1 MB of test and build output, full of the bytes
// secrets are looked for around (_ - ? & @ I), with two secrets after
// every 3*every lines when every > 0.
func buildLog(every int) string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "=== RUN   TestStore_Put-%d/case_%d\n", i, i%7)
		fmt.Fprintf(&b, "    store_test.go:%d: GET https://api.example.com/v1/items?page=%d&limit=50 -> 200 (user=dev@example.com)\n", i%400, i)
		fmt.Fprintf(&b, "--- PASS: TestStore_Put-%d (0.00s) INFO id=0b6f3c8e-6a2b-4c1d-%04d sha=9fceb02d0ae598e95dc970b74767f19372d61af8\n", i, i%10000)
		if every > 0 && i%every == 0 {
			fmt.Fprintf(&b, "    env: GITHUB_TOKEN=%s AWS_ACCESS_KEY_ID=%s\n", ghToken, awsID)
		}
	}
	return b.String()
}

// BenchmarkString measures redaction of 1 MB outputs: without secrets
// (the usual case: one pass, nothing allocated), with a few secrets, and
// a real Claude Code transcript (JSON, code, logs) as text.
func BenchmarkString(b *testing.B) {
	cases := []struct {
		name string
		text string
	}{
		{"log-1MB-clean", buildLog(0)},
		{"log-1MB-secret-every-1000-lines", buildLog(333)},
		{"prose-1MB", strings.Repeat("The quick brown fox jumps over the lazy dog; nothing to hide here at all.\n", 1<<20/74)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			for b.Loop() {
				String(c.text)
			}
		})
	}
	b.Run("transcript-1MB", func(b *testing.B) {
		paths := realdata.Spotter(b)
		data, err := os.ReadFile(paths[0])
		if err != nil {
			b.Fatal(err)
		}
		text := string(data[:min(len(data), 1<<20)])
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			String(text)
		}
		b.ReportMetric(float64(len(find(text))), "secrets")
	})
}
