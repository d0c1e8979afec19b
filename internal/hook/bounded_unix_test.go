//go:build unix

package hook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/fsx/fsxtest"
)

// A transcript path that links to /dev/zero (or is a FIFO) is refused at
// once: PreCompact fails open, reading nothing, with the reason logged.
// Read, /dev/zero used to cost PreCompact gigabytes and, under a memory
// cap, a crash with exit 2 — the client's blocking code.
func TestPreCompactRefusesWhatIsNotARegularFile(t *testing.T) {
	f := newSwapFixture(t)
	for _, path := range fsxtest.NotRegular(t)[:2] { // the link and the FIFO, both *.jsonl
		ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": "/p",
			"hook_event_name": "PreCompact", "trigger": "auto"})
		if out := f.run(ev, handlers); out != "" {
			t.Errorf("%s: PreCompact printed %q", path, out)
		}
	}
	if log := f.log(); strings.Count(log, "not a regular file")+strings.Count(log, "symbolic link")+strings.Count(log, "too many levels") < 2 {
		t.Errorf("the refusals were not logged:\n%s", log)
	}
}
