package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/redact"
)

// Local is what sync reads on this machine: the chunks written past a
// change number, and the outputs they refer to.
type Local interface {
	ChunksAfter(ctx context.Context, root string, after int64, limit int) ([]ctxkeep.Change, error)
	Entry(ctx context.Context, id string) (ctxkeep.Entry, error)
	Open(ctx context.Context, h ctxkeep.Hash) ([]byte, error)
}

// Remote is the team archive.
type Remote interface {
	Push(ctx context.Context, p ctxkeep.TeamPush) (ctxkeep.TeamPushed, error)
}

// Options shape a sync.
type Options struct {
	Projects []Project // the projects opted in; nothing else is read
	// PushOutputs pushes the (redacted) text of the outputs the chunks
	// refer to, up to MaxOutputBytes each; without it, their entries only.
	PushOutputs    bool
	MaxOutputBytes int64
	// View gives what the model saw of an output in its place (the view,
	// or the condensed output, as the session's transcript holds it), for
	// an output whose text is not pushed: it goes with the step, redacted,
	// in the step's body after the reference, so that a teammate's search
	// finds what the model saw and their recall prints it. ok is false
	// when it is not known (the transcript gone).
	View     func(ctx context.Context, e ctxkeep.Entry) (view string, ok bool)
	Batch    int    // chunks per transaction (default DefaultBatch)
	Cursor   string // the cursor file of this team archive
	Identity string // the team archive's identity, kept in the cursor
	Now      func() time.Time
	Progress func(Result) // called after each batch, when set
	// BeforePush sees each push before it is sent (tests check what
	// leaves the machine).
	BeforePush func(ctxkeep.TeamPush)
}

// DefaultBatch is how many chunks one transaction pushes.
const DefaultBatch = 200

// Result counts what a sync did.
type Result struct {
	Projects int `json:"projects"`
	Chunks   int `json:"chunks"`  // read past the cursor and pushed
	Written  int `json:"written"` // new or changed in the team archive
	Outputs  int `json:"outputs"` // entries pushed
	Texts    int `json:"texts"`   // of which with their text
	Views    int `json:"views"`   // of which, without it, with what the model saw
	Batches  int `json:"batches"`
}

// Sync pushes what the projects opted in archived since the cursor: for
// each project, batches of chunks in the order they were written, each
// with the outputs it refers to, in one transaction; the project's cursor
// moves (durably) only once its batch committed. A sync stopped anywhere —
// the server gone, the process killed — leaves the cursor at the last
// committed batch: the next sync pushes the rest, and a batch pushed
// twice is stored once (keyed rows). Everything pushed is redacted.
func Sync(ctx context.Context, local Local, remote Remote, o Options) (Result, error) {
	var res Result
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cur, err := LoadCursor(o.Cursor)
	if err != nil {
		return res, err
	}
	cur.Identity = o.Identity
	for _, p := range o.Projects {
		res.Projects++
		for {
			after := cur.Projects[p.CursorKey()]
			changes, err := local.ChunksAfter(ctx, p.Root, after, o.Batch)
			if err != nil {
				return res, fmt.Errorf("read the local archive of %s: %w", p.Root, err)
			}
			if len(changes) == 0 {
				break
			}
			push, texts, views := prepare(ctx, local, p, changes, o)
			if o.BeforePush != nil {
				o.BeforePush(push)
			}
			n, err := remote.Push(ctx, push)
			if err != nil {
				return res, fmt.Errorf("push %s to the team archive: %w", p.Name, err)
			}
			cur.Projects[p.CursorKey()] = changes[len(changes)-1].Seq
			cur.Updated = o.Now().UTC()
			if err := cur.Save(o.Cursor); err != nil {
				return res, err
			}
			res.Batches++
			res.Chunks += len(push.Chunks)
			res.Written += n.Chunks
			res.Outputs += len(push.Entries)
			res.Texts += texts
			res.Views += views
			if o.Progress != nil {
				o.Progress(res)
			}
		}
	}
	return res, nil
}

// prepare turns a batch of local chunks into a push: redacted, named as
// the team project, with the outputs the chunks refer to. It returns how
// many outputs go with their text, and how many with their view instead.
func prepare(ctx context.Context, local Local, p Project, changes []ctxkeep.Change, o Options) (ctxkeep.TeamPush, int, int) {
	push := ctxkeep.TeamPush{Project: p.Name}
	sessions := map[string]*ctxkeep.TeamSession{}
	var order []string
	seen := map[string]bool{}
	texts, views := 0, 0
	for _, ch := range changes {
		c := redactChunk(ch.Chunk)
		c.Project = p.Name
		c.Outputs = nil
		for _, id := range c.Meta.Entries {
			e, bl, ok := output(ctx, local, id, p, o)
			if !ok {
				continue // pruned meanwhile: the body's reference says it is gone
			}
			if bl.Data != nil {
				c.Outputs = append(c.Outputs, string(bl.Data))
			} else if withView(ctx, local, &c, id, o) {
				views++
			}
			if seen[e.ID] {
				continue
			}
			seen[e.ID] = true
			push.Entries = append(push.Entries, e)
			push.Blobs = append(push.Blobs, bl)
			if bl.Data != nil {
				texts++
			}
		}
		push.Chunks = append(push.Chunks, c)
		s := sessions[c.SessionID]
		if s == nil {
			s = &ctxkeep.TeamSession{ID: c.SessionID, FirstSeen: c.Start, LastSeen: c.End}
			sessions[c.SessionID] = s
			order = append(order, c.SessionID)
		}
		if !c.Start.IsZero() && (s.FirstSeen.IsZero() || c.Start.Before(s.FirstSeen)) {
			s.FirstSeen = c.Start
		}
		if c.End.After(s.LastSeen) {
			s.LastSeen = c.End
		}
	}
	for _, id := range order {
		push.Sessions = append(push.Sessions, *sessions[id])
	}
	return push, texts, views
}

// ViewHeading introduces, in a pushed step's body, what the model saw of
// an output whose text stayed on its author's machine.
const ViewHeading = "(what the model saw in its place:)\n"

// CopyElsewhere stands, in a pushed view, for the path of the output's
// readable copy: the team needs no one's home layout (docs/TEAM.md).
const CopyElsewhere = "(its readable copy, on its author's machine)"

// withView puts what the model saw of output id (o.View), redacted, in the
// pushed step's body right after the output's reference; it reports
// whether it did.
func withView(ctx context.Context, local Local, c *ctxkeep.Chunk, id string, o Options) bool {
	if o.View == nil {
		return false
	}
	e, err := local.Entry(ctx, id)
	if err != nil {
		return false
	}
	view, ok := o.View(ctx, e)
	ref := archive.RefPrefix + id + "]]"
	if !ok || view == "" || !strings.Contains(c.Body, ref) {
		return false
	}
	if e.CopyPath != "" { // the view names the readable copy, a file on this machine
		view = strings.ReplaceAll(view, e.CopyPath, CopyElsewhere)
	}
	view = strings.TrimRight(redact.String(view), "\n")
	c.Body = strings.Replace(c.Body, ref, ref+"\n"+ViewHeading+view+"\n", 1)
	return true
}

// output is the entry id refers to and its blob, redacted: the blob's
// hash is that of the redacted text, which is pushed only when the
// settings allow it. ok is false when the output is no longer stored here.
func output(ctx context.Context, local Local, id string, p Project, o Options) (ctxkeep.Entry, ctxkeep.TeamBlob, bool) {
	e, err := local.Entry(ctx, id)
	if err != nil {
		return e, ctxkeep.TeamBlob{}, false
	}
	data, err := local.Open(ctx, e.Hash)
	if err != nil {
		return e, ctxkeep.TeamBlob{}, false
	}
	data = redact.Bytes(data)
	bl := ctxkeep.TeamBlob{Hash: ctxkeep.Sum(data), Size: int64(len(data))}
	if o.PushOutputs && int64(len(data)) <= o.MaxOutputBytes {
		bl.Data = data
	}
	e.Hash = bl.Hash
	e.Input, e.Summary, e.PinReason = redact.String(e.Input), redact.String(e.Summary), redact.String(e.PinReason)
	e.CopyPath = "" // a file on this machine
	e.Cwd = relativeTo(p.Root, e.Cwd)
	return e, bl, true
}

// redactChunk replaces the secrets in every text of a chunk, its Meta
// included (whatever fields it grows), by their markers: through its
// JSON, whose strings redact.JSON redacts as they decode.
func redactChunk(c ctxkeep.Chunk) ctxkeep.Chunk {
	data, err := json.Marshal(c)
	if err != nil {
		return ctxkeep.Chunk{Key: c.Key, SessionID: c.SessionID, Kind: c.Kind, Turn: c.Turn, Body: "(not pushed: " + err.Error() + ")"}
	}
	var out ctxkeep.Chunk
	if err := json.Unmarshal(redact.JSON(data), &out); err != nil {
		return ctxkeep.Chunk{Key: c.Key, SessionID: c.SessionID, Kind: c.Kind, Turn: c.Turn, Body: "(not pushed: " + err.Error() + ")"}
	}
	return out
}

// relativeTo is dir relative to the project's root ("." for the root),
// or "" for a folder outside it: the team needs no one's home layout.
func relativeTo(root, dir string) string {
	if dir == "" {
		return ""
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || filepath.IsAbs(rel) || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return ""
	}
	return rel
}

// key names a project in the cursor: its root and its team name, so that
// a project joining again under another name is pushed again.
func (p Project) CursorKey() string { return p.Name + " " + p.Root }

// Cursor is how far each project was pushed to one team archive: the
// change number of the last chunk pushed.
type Cursor struct {
	Identity string           `json:"identity"`
	Projects map[string]int64 `json:"projects"`
	Updated  time.Time        `json:"updated,omitzero"`
}

// LoadCursor reads a cursor; a missing file is a cursor at the start.
func LoadCursor(path string) (Cursor, error) {
	c := Cursor{Projects: map[string]int64{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("sync cursor %s: %w (remove it to push everything again; nothing is stored twice)", path, err)
	}
	if c.Projects == nil {
		c.Projects = map[string]int64{}
	}
	return c, nil
}

// Save writes the cursor durably (written, synced, renamed).
func (c Cursor) Save(path string) error {
	if err := fsx.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(c, "", "  ")
	return fsx.WriteFileAtomic(path, append(data, '\n'), fsx.FilePerm)
}
