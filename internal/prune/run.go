package prune

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// BatchSize is how many outputs one transaction removes: hooks waiting for
// the write lock wait for one batch at most.
const BatchSize = 100

// Result is what Run removed.
type Result struct {
	Removed []ctxkeep.Entry `json:"-"`
	Entries int             `json:"entries"`
	Blobs   int             `json:"blobs"`
	Bytes   int64           `json:"bytes"` // stored bytes returned
	Copies  int             `json:"copies"`
}

// Run removes the plan's outputs, a batch at a time, each in the store's
// write order, then their readable copies. It stops between batches when
// ctx is done; what it removed so far stays removed and a later run goes
// on. Outputs removed or replaced since the plan was made are skipped.
func Run(ctx context.Context, st ctxkeep.OutputStore, plan *Plan) (Result, error) {
	var res Result
	es := plan.Entries()
	for len(es) > 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		batch := es[:min(BatchSize, len(es))]
		es = es[len(batch):]
		rm, err := st.Remove(ctx, batch)
		res.Removed = append(res.Removed, rm.Entries...)
		res.Entries += len(rm.Entries)
		res.Blobs += len(rm.Freed)
		for _, b := range rm.Freed {
			res.Bytes += b.Stored
		}
		for _, e := range rm.Entries {
			if removeCopy(e) {
				res.Copies++
			}
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// Record appends to the removals log at path one line per output res
// removed, with the reason the plan gave: nothing leaves the store without
// a trace of what it was and why it went.
func Record(path string, plan *Plan, res Result, now time.Time) error {
	if len(res.Removed) == 0 {
		return nil
	}
	why := make(map[string]Item, len(plan.Items))
	for _, it := range plan.Items {
		why[it.Entry.ID] = it
	}
	var b strings.Builder
	for _, e := range res.Removed {
		it := why[e.ID]
		fmt.Fprintf(&b, "%s removed %s session=%s tool=%s pin=%s stored=%s bytes=%d reason=%q call=%q\n",
			now.UTC().Format(time.RFC3339), e.ID, e.SessionID, e.Tool, e.PinLevel, e.CreatedAt.UTC().Format(time.RFC3339),
			it.Frees, it.Reason, text.Cut(text.FirstLine(e.Input), 120))
	}
	return fsx.Append(path, []byte(b.String()))
}

// removeCopy deletes an entry's readable copy, and reports whether there
// was one. Only a file named as ctxkeep names its copies, in a
// tool-results folder, is ever removed: the path comes from the index, and
// nothing else may be deleted through it.
func removeCopy(e ctxkeep.Entry) bool {
	p := filepath.Clean(e.CopyPath)
	if e.CopyPath == "" || !filepath.IsAbs(p) || filepath.Base(p) != swap.CopyPrefix+e.ID+".txt" ||
		filepath.Base(filepath.Dir(p)) != "tool-results" {
		return false
	}
	return os.Remove(p) == nil
}

// Grace is how old garbage must be before it goes: a put, or a wrapped
// command, in progress has files that look the same.
const (
	Grace      = time.Hour
	SpoolGrace = 24 * time.Hour // wrapped commands may run in the background for hours
)

// File is a leftover file.
type File struct {
	Path    string    `json:"path"`
	Size    int64     `json:"bytes"`
	ModTime time.Time `json:"written_at"`
}

// SpoolLeftovers lists the files in the wrapper's spool folder written
// before before: output of wrapped commands that neither `ctxkeep capture`
// nor the PostToolUseFailure hook collected.
func SpoolLeftovers(dir string, before time.Time) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []File
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(before) {
			continue
		}
		out = append(out, File{Path: filepath.Join(dir, e.Name()), Size: fi.Size(), ModTime: fi.ModTime()})
	}
	return out, nil
}

// CopyLeftovers lists the temporary files an interrupted write of a
// readable copy left in the tool-results folders dirs (".ctxkeep-ID.txt.tmp-…",
// fsx's temp names for swap.CopyPrefix copies), written before before.
// Only files named so are listed: those folders are the client's.
func CopyLeftovers(dirs []string, before time.Time) ([]File, error) {
	var out []File
	seen := map[string]bool{}
	for _, dir := range dirs {
		if dir == "" || seen[dir] || filepath.Base(dir) != "tool-results" {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, "."+swap.CopyPrefix) || !strings.Contains(name, ".txt.tmp-") {
				continue
			}
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(before) {
				continue
			}
			out = append(out, File{Path: filepath.Join(dir, name), Size: fi.Size(), ModTime: fi.ModTime()})
		}
	}
	return out, nil
}

// CopyDirs are the tool-results folders a store's entries and sessions
// point at: where readable copies (and their leftovers) live.
func CopyDirs(st *State) []string {
	var dirs []string
	for _, e := range st.Entries {
		if e.CopyPath != "" {
			dirs = append(dirs, filepath.Dir(e.CopyPath))
		}
	}
	for id, s := range st.Sessions {
		if strings.HasSuffix(s.Transcript, id+".jsonl") {
			dirs = append(dirs, filepath.Join(strings.TrimSuffix(s.Transcript, ".jsonl"), "tool-results"))
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// RemoveFiles deletes files and returns those it deleted.
func RemoveFiles(files []File) ([]File, error) {
	var done []File
	var errs []error
	for _, f := range files {
		if err := os.Remove(f.Path); err == nil || errors.Is(err, fs.ErrNotExist) {
			done = append(done, f)
		} else {
			errs = append(errs, err)
		}
	}
	return done, errors.Join(errs...)
}
