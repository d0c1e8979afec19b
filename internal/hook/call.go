package hook

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/config"
)

// Call is one hook invocation as handlers see it. Stores are opened lazily:
// most events never touch the database.
type Call struct {
	*app.App        // folders, project, store
	Agent    string // the client: "" for Claude Code, ctxkeep.AgentCodex, ctxkeep.AgentGemini
	Event    *Event
	Payload  []byte
	Config   *config.Config

	logf  func(format string, args ...any)
	large *ctxkeep.LargeOutput // a command's output swapped out, journalled to learn from
	// replies is set when what the model sees of a stored output goes
	// back in this call's reply (PostToolUse): its effect is then checked
	// in the transcript at the end of the turn (proof.go).
	replies bool
}

// Store opens the store on first use. It never migrates: an index that is
// missing or from another version fails the call (fail open) until
// `ctxkeep install` or any CLI command migrates it.
func (c *Call) Store() (ctxkeep.Local, error) {
	return c.App.Store(context.Background(), ctxkeep.OpenExisting)
}

// close ends the call's use of the index. Closing checkpoints the WAL into
// the database when this is the last connection: a process that exits
// without closing leaves its WAL, and every later process, being the first
// connection, replays all of it when it opens the index. So the end of a
// turn (Stop, PreCompact, SessionEnd) always closes, and other calls close
// only once the WAL has grown past maxWAL; within a turn the WAL grows by
// a few pages per swapped output, and the calls the agent waits for most
// (PostToolUse) skip the checkpoint.
func (c *Call) close() {
	if c.Opened() == nil {
		return
	}
	switch c.claudeEvent() {
	case "Stop", "PreCompact", "SessionEnd":
		c.Close()
		return
	}
	if st, err := os.Stat(c.Dirs.IndexDB() + "-wal"); err == nil && st.Size() > maxWAL {
		c.Close()
	}
}

// maxWAL is the WAL size past which any hook checkpoints it (replaying
// 1 MB costs a fresh process about a millisecond).
const maxWAL = 1 << 20

// record appends this call to the session's journal.
func (c *Call) record(start time.Time, outcome string) error {
	ev := c.Event
	return c.Journal().Append(ev.SessionID, ctxkeep.Event{
		Time:       start.UTC(),
		Event:      ev.HookEventName,
		Tool:       ev.ToolName,
		Agent:      ev.AgentID,
		Bytes:      int64(len(c.Payload)),
		Micros:     c.Env.Now().Sub(start).Microseconds(),
		Outcome:    outcome,
		Client:     ClientVersion(c.Env.Getenv("AI_AGENT")),
		Cwd:        ev.Cwd,
		Transcript: ev.TranscriptPath,
		Large:      c.large,
	})
}

// ClientVersion reads the client's version from the AI_AGENT variable the
// client sets for hooks ("claude-code_2-1-330_harness" → "2.1.330").
func ClientVersion(aiAgent string) string {
	rest, ok := strings.CutPrefix(aiAgent, "claude-code_")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, "_")
	return strings.ReplaceAll(v, "-", ".")
}
