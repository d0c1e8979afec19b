package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ctxkeep/ctxkeep"
)

// Repaired is what Repair did with the problems of a Report.
type Repaired = ctxkeep.Repaired

// Repair fixes the problems of r that can be fixed without losing data
// and describes the others:
//
//   - a missing or corrupt blob is written again from an entry's readable
//     copy, when one is still there and hashes right;
//   - an entry whose blob has no row gets the row back when the blob file
//     is intact (or can be restored from its copy);
//   - broken SQLite indexes are rebuilt (REINDEX), FTS5 tables that fail
//     their check are rebuilt when they keep their content.
//
// Nothing is deleted: garbage is prune's, and an entry whose content is
// gone stays listed until the user removes it.
func (s *Store) Repair(ctx context.Context, r Report) (Repaired, error) {
	var out Repaired
	fixed := func(format string, args ...any) { out.Fixed = append(out.Fixed, fmt.Sprintf(format, args...)) }
	unfixed := func(format string, args ...any) { out.Unfixed = append(out.Unfixed, fmt.Sprintf(format, args...)) }

	if len(r.IndexProblems) > 0 {
		if err := s.DB.Reindex(ctx); err != nil {
			return out, err
		}
		if left, err := s.DB.IntegrityCheck(ctx); err != nil {
			return out, err
		} else if len(left) == 0 {
			fixed("rebuilt the index's b-tree indexes (REINDEX): integrity_check passes")
		} else {
			unfixed("index.db: %s (restore a copy, or rebuild it with `sqlite3 index.db .recover`)", strings.Join(left, "; "))
		}
	}
	for _, p := range r.FTSProblems {
		table, _, _ := strings.Cut(p, " ")
		if err := s.DB.FTSCommand(ctx, table, "rebuild"); err != nil {
			unfixed("%s: %v", p, err)
		} else if err := s.DB.FTSCommand(ctx, table, "integrity-check"); err != nil {
			unfixed("%s: still failing after a rebuild: %v", table, err)
		} else {
			fixed("rebuilt the full-text index %s", table)
		}
	}
	for _, h := range append(append([]ctxkeep.Hash{}, r.Missing...), r.Corrupt...) {
		es, err := s.DB.Entries(ctx, ctxkeep.EntryFilter{Hash: h})
		if err != nil {
			return out, err
		}
		if from, err := s.restore(h, es); err == nil {
			fixed("blob %s: written again from %s", h.Short(), from)
		} else {
			unfixed("blob %s (entries %s): %v", h.Short(), ids(es), err)
		}
	}
	for _, id := range r.Dangling {
		e, err := s.DB.Entry(ctx, id)
		if err != nil {
			unfixed("entry %s: %v", id, err)
			continue
		}
		if err := s.readd(ctx, e); err != nil {
			unfixed("entry %s: %v", id, err)
		} else {
			fixed("entry %s: its blob's row is back", id)
		}
	}
	return out, nil
}

// restore writes blob h again from the readable copy of one of es, and
// returns the copy used.
func (s *Store) restore(h ctxkeep.Hash, es []ctxkeep.Entry) (string, error) {
	for _, e := range es {
		data, err := os.ReadFile(e.CopyPath)
		if e.CopyPath == "" || err != nil || ctxkeep.Sum(data) != h {
			continue
		}
		if _, _, err := s.blobs.Put(data); err != nil {
			return "", err
		}
		return e.CopyPath, nil
	}
	return "", errors.New("its content is lost: no readable copy with the same SHA-256 is left")
}

// readd gives an entry whose blob has no row that row back, restoring the
// blob from the entry's copy if the file is gone or damaged.
func (s *Store) readd(ctx context.Context, e ctxkeep.Entry) error {
	if _, err := s.blobs.Get(e.Hash); err != nil {
		if _, rerr := s.restore(e.Hash, []ctxkeep.Entry{e}); rerr != nil {
			return fmt.Errorf("blob %s: %v; %w", e.Hash.Short(), err, rerr)
		}
	}
	data, err := s.blobs.Get(e.Hash)
	if err != nil {
		return err
	}
	st, err := s.blobs.Stat(e.Hash)
	if err != nil {
		return err
	}
	info := ctxkeep.Blob{Hash: e.Hash, Size: int64(len(data)), Stored: st}
	return s.DB.AddBlob(ctx, info, s.now(), s.present(e.Hash))
}

func ids(es []ctxkeep.Entry) string {
	if len(es) == 0 {
		return "none"
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.ID
	}
	return strings.Join(names, ", ")
}
