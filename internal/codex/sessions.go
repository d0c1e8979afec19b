package codex

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Rollouts lists the rollout files under home's sessions folder, oldest
// first (their names start with the time they were created).
func Rollouts(home string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(SessionsDir(home), "*", "*", "*", "rollout-*.jsonl"))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	return paths, nil
}

// Find returns the rollout of the session whose id is id or starts with
// it; ErrNotFound or ErrAmbiguous otherwise.
func Find(home, id string) (string, error) {
	paths, err := Rollouts(home)
	if err != nil {
		return "", err
	}
	var found []string
	for _, p := range paths {
		if sessionOf(p) == id {
			return p, nil
		}
		if strings.HasPrefix(sessionOf(p), id) {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", ctxkeep.Errorf(ctxkeep.ErrNotFound, "no Codex session %q under %s", id, SessionsDir(home))
	case 1:
		return found[0], nil
	}
	return "", ctxkeep.Errorf(ctxkeep.ErrAmbiguous, "%q matches %d Codex sessions", id, len(found))
}

// sessionOf is the session id at the end of a rollout's name:
// rollout-2026-11-23T17-55-53-<id>.jsonl, the id a UUID.
func sessionOf(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	const uuid = 36
	if len(name) < len("rollout-")+uuid {
		return ""
	}
	return name[len(name)-uuid:]
}

// IsRollout reports whether a file is a Codex rollout: its first line is
// a session_meta.
func IsRollout(path string) bool {
	_, err := ReadMeta(path)
	return err == nil
}

// Meta is what a rollout's first line says of its session.
type Meta struct {
	ID         string
	Cwd        string
	CLIVersion string
}

// ReadMeta reads a rollout's session_meta line.
func ReadMeta(path string) (Meta, error) {
	f, _, err := fsx.OpenRegular(path) // a FIFO named by mistake must not hang
	if err != nil {
		return Meta{}, err
	}
	defer f.Close()
	sc := transcript.NewScanner(f, transcript.Cursor{})
	if !sc.Scan() {
		return Meta{}, fmt.Errorf("%s: %w", path, errNotRollout)
	}
	kind, p, ok := decode(sc.Record().Raw)
	if !ok || kind != lineSessionMeta || p.ID == "" {
		return Meta{}, fmt.Errorf("%s: %w", path, errNotRollout)
	}
	return Meta{ID: p.ID, Cwd: p.Cwd, CLIVersion: p.CLIVersion}, nil
}

var errNotRollout = errors.New("not a Codex rollout (no session_meta on its first line)")

// Report is the context usage of a session along its rollout.
type Report struct {
	Meta
	transcript.UsageReport
}

// ReadReport reads a whole rollout for its usage.
func ReadReport(path string) (*Report, error) {
	meta, err := ReadMeta(path)
	if err != nil {
		return nil, err
	}
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		return nil, err
	}
	r := &Report{Meta: meta}
	var cumulative, cycle int64 // the session's tokens so far; the peak since the last compaction
	for _, rec := range f.Records {
		kind, p, ok := decode(rec.Raw)
		if !ok {
			continue
		}
		takeUsage(&r.Usage, kind, &p, rec.Timestamp)
		switch {
		case kind == lineCompacted:
			r.Compactions = append(r.Compactions, transcript.CompactedAt{Time: rec.Timestamp, Before: cycle})
			cycle = 0
		case kind == lineEventMsg && p.Type == "token_count" && p.Info != nil && p.Info.Last.InputTokens > 0 && p.Info.Total.TotalTokens != cumulative:
			// One point a response: the client repeats a token count,
			// with the same session total.
			cumulative = p.Info.Total.TotalTokens
			r.Responses++
			r.Timeline = append(r.Timeline, transcript.UsagePoint{Time: rec.Timestamp, Tokens: r.Usage.Tokens})
			r.Peak, cycle = max(r.Peak, r.Usage.Tokens), max(cycle, r.Usage.Tokens)
		}
	}
	r.Model = r.Usage.Model
	return r, nil
}
