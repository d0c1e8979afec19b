package journal

import (
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

func BenchmarkAppend(b *testing.B) {
	dir := b.TempDir()
	r := ctxkeep.Event{Time: time.Now(), Event: "PostToolUse", Tool: "Bash", Bytes: 710, Micros: 900, Outcome: ctxkeep.OK,
		Client: "2.1.330", Cwd: "/home/u/project", Transcript: "/home/u/.claude/projects/-home-u-project/1f84df74-1cb3-4ca8-ba66-bdf2849cfcee.jsonl"}
	for range b.N {
		if err := Append(dir, "1f84df74-1cb3-4ca8-ba66-bdf2849cfcee", r); err != nil {
			b.Fatal(err)
		}
	}
}
