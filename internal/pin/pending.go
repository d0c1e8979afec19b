package pin

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// Pending is a pin waiting for outputs that are not stored yet: "next"
// pins the session's next stored output, a range every output until it
// ends.
type Pending struct {
	Level  ctxkeep.PinLevel `json:"level"`
	Reason string           `json:"reason,omitempty"`
	Since  time.Time        `json:"since"`
}

// Kinds of pending pins, also the suffixes of their files.
const (
	KindNext  = "next"
	KindRange = "range"
)

// Waiting is one pending pin of one session, for listings.
type Waiting struct {
	SessionID string `json:"session_id"`
	Kind      string `json:"kind"` // KindNext or KindRange
	Pending
}

// Dir holds the pending pins, one small file per session and kind:
// <dir>/<session>.next and <dir>/<session>.range. Files rather than rows
// because the PostToolUse hook looks for them every time it stores an
// output: a missing file costs it a failed rename and a failed open, a
// table a query.
type Dir string

// DirIn is the pending-pin folder inside ctxkeep's state folder.
func DirIn(state string) Dir { return Dir(filepath.Join(state, "pins")) }

func (d Dir) path(session, kind string) (string, error) {
	if err := ctxkeep.ValidSessionID(session); err != nil {
		return "", err
	}
	return filepath.Join(string(d), session+"."+kind), nil
}

// Set records a pending pin of kind for session, replacing one of the same
// kind; replaced says whether there was one.
func (d Dir) Set(session, kind string, p Pending) (replaced bool, err error) {
	path, err := d.path(session, kind)
	if err != nil {
		return false, err
	}
	data, err := json.Marshal(p)
	if err != nil {
		return false, err
	}
	if err := fsx.MkdirPrivate(string(d)); err != nil {
		return false, err
	}
	_, err = os.Stat(path)
	replaced = err == nil
	return replaced, fsx.WriteFileAtomic(path, data, fsx.FilePerm)
}

// Take removes the pending pin of kind for session and returns it; ok is
// false when there was none.
func (d Dir) Take(session, kind string) (p Pending, ok bool, err error) {
	path, err := d.path(session, kind)
	if err != nil {
		return p, false, err
	}
	p, err = read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	return p, true, os.Remove(path)
}

// Claim returns the pin an output stored now for session gets: the
// pending "next", which it consumes, and the open range, the higher level
// winning. ok is false when nothing is pending, the usual case, which
// costs two failed system calls.
//
// Two outputs stored at once never both take the same "next": it is
// claimed by renaming its file, which only one process can do.
func (d Dir) Claim(session string) (p Pending, ok bool, err error) {
	next, err := d.path(session, KindNext)
	if err != nil {
		return p, false, err
	}
	claimed := next + ".claimed-" + randomSuffix()
	switch err := os.Rename(next, claimed); {
	case err == nil:
		p, err = read(claimed)
		os.Remove(claimed)
		if err != nil {
			return p, false, err
		}
		ok = true
	case !errors.Is(err, fs.ErrNotExist):
		return p, false, err
	}
	rng, err := d.path(session, KindRange)
	if err != nil {
		return p, ok, err
	}
	r, err := read(rng)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, ok, nil
	case err != nil:
		return p, ok, err
	case !ok || r.Level > p.Level:
		return r, true, nil
	}
	return p, true, nil
}

// Clear drops every pending pin of session.
func (d Dir) Clear(session string) error {
	var errs []error
	for _, kind := range []string{KindNext, KindRange} {
		if path, err := d.path(session, kind); err != nil {
			errs = append(errs, err)
		} else if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// List returns every pending pin, oldest first. Files that do not read as
// pending pins are skipped.
func (d Dir) List() ([]Waiting, error) {
	entries, err := os.ReadDir(string(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Waiting
	for _, e := range entries {
		dot := strings.LastIndexByte(e.Name(), '.')
		session, kind := e.Name()[:max(dot, 0)], e.Name()[dot+1:]
		if (kind != KindNext && kind != KindRange) || ctxkeep.ValidSessionID(session) != nil {
			continue
		}
		p, err := read(filepath.Join(string(d), e.Name()))
		if err != nil {
			continue
		}
		out = append(out, Waiting{SessionID: session, Kind: kind, Pending: p})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out, nil
}

func read(path string) (Pending, error) {
	var p Pending
	data, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("pending pin %s: %w", path, err)
	}
	return p, nil
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
