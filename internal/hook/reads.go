package hook

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// Re-reads. Claude Code 2.1.330 sends a second Read of an unchanged file
// to the model whole again (e2e TestUnchangedRereadIsAPointer). The hook
// remembers, per session, what each Read of the main thread returned — the
// file, the lines asked for, a hash of the content — and answers a Read
// whose lines and content are those of the last Read of the same lines
// with a short pointer to it. Never the first Read (the model needs the
// content, Edit builds on it), never after the file changed (the content
// differs), never after compaction (SessionStart "compact" or "clear"
// forgets the session's reads: the earlier result is no longer in the
// context).
//
// The reads are one small append-only file per session in the state
// folder, one JSON line per Read written with a single O_APPEND write, so
// that parallel Reads never interleave; a Read in flight at the same time
// as another of the same lines simply finds nothing yet, and arrives whole.

// readMark is one Read the model saw.
type readMark struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Sum    string `json:"sha256"` // of the content, 32 hex digits
}

func (m readMark) sameLines(o readMark) bool {
	return m.Path == o.Path && m.Offset == o.Offset && m.Limit == o.Limit
}

// readsPath is the session's file of reads.
func (c *Call) readsPath() string {
	return filepath.Join(c.Dirs.State, "reads", c.Event.SessionID+".jsonl")
}

// maxReadsBytes bounds the file of reads read back: past it (tens of
// thousands of Reads), the session's reads are forgotten and start over.
const maxReadsBytes = 4 << 20

// rereadPointer answers a Read that repeats the last Read of the same
// lines with the same content, and remembers every Read it sees. It
// returns nil when the Read is to go on as usual.
func (c *Call) rereadPointer(ctx context.Context, in claudecode.Input, out claudecode.Output) (*Reply, error) {
	ev := c.Event
	if !c.Config.Swap.Rereads || ev.AgentID != "" || out.PersistedPath != "" ||
		swap.PassThrough(swap.Call{Tool: "Read", FilePath: in.FilePath}, c.Config.Swap) != "" {
		return nil, nil
	}
	sum := sha256.Sum256([]byte(out.Text))
	mark := readMark{Path: in.FilePath, Offset: in.Offset, Limit: in.Limit, Sum: hex.EncodeToString(sum[:16])}
	last, seen := c.lastRead(mark)
	if err := c.rememberRead(mark); err != nil {
		c.logf("%s session=%s: remember read: %v", ev.HookEventName, ev.SessionID, err)
	}
	if !seen || last.Sum != mark.Sum || len(out.Text) < swap.MinPointer {
		return nil, nil
	}
	sessionDir, err := claudecode.SessionDir(ev.TranscriptPath, ev.SessionID)
	if err != nil {
		return nil, err
	}
	item := swap.Item{
		ID: swap.EntryID(ev.SessionID, ev.ToolUseID), Tool: "Read", Input: in.Describe("Read", ev.ToolInput),
		Text: out.Text, Exit: swap.NoExit, FilePath: in.FilePath,
	}
	pointer := func(it swap.Item) (string, swap.Stats) { return swap.Pointer(it, swap.ReadRange(in.Offset, in.Limit)) }
	view, err := c.putOutput(ctx, &item, sessionDir, pointer, true)
	if err != nil {
		return nil, err
	}
	return c.replace(out, view)
}

// lastRead finds the last Read of the same lines as m.
func (c *Call) lastRead(m readMark) (last readMark, seen bool) {
	data, err := fsx.ReadRegular(c.readsPath(), maxReadsBytes)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.logf("%s session=%s: reads: %v; forgotten", c.Event.HookEventName, c.Event.SessionID, err)
			os.Remove(c.readsPath())
		}
		return last, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxReadsBytes)
	for sc.Scan() {
		var r readMark
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.sameLines(m) {
			last, seen = r, true
		}
	}
	return last, seen
}

// rememberRead appends m to the session's reads with one write.
func (c *Call) rememberRead(m readMark) error {
	line, err := json.Marshal(m)
	if err != nil {
		return err
	}
	path := c.readsPath()
	if err := fsx.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, fsx.FilePerm)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// forgetReads drops the session's reads: after compaction or /clear the
// earlier results are no longer in the context, and at the session's end
// they are of no more use.
func forgetReads(_ context.Context, c *Call) (*Reply, error) {
	switch c.Event.HookEventName {
	case "SessionStart":
		if c.Event.Source != "compact" && c.Event.Source != "clear" {
			return nil, nil
		}
	case "PreCompact", "SessionEnd":
	default:
		return nil, nil
	}
	if err := os.Remove(c.readsPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return nil, nil
}
