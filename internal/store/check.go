package store

import (
	"context"
	"errors"
	"slices"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/blob"
	"github.com/ctxkeep/ctxkeep/internal/progress"
)

// Report is what Check found (ctxkeep.CheckReport).
type Report = ctxkeep.CheckReport

// Check compares rows and blob files, and looks for entries whose blob has
// no row. With deep, every blob is read and its hash verified, SQLite runs
// its full integrity_check instead of quick_check, and every FTS5 table
// its own integrity check; otherwise only presence is checked (fast
// enough for doctor).
//
// Check may run while hooks store and prune removes: a blob that looks
// missing is confirmed under the write lock before it is reported (see
// sqlite.ConfirmMissing), and one stored meanwhile is not called garbage.
func (s *Store) Check(ctx context.Context, deep bool) (Report, error) {
	var r Report
	p := progress.From(ctx)
	p.Start("checking the index", 0)
	if err := s.checkIndex(ctx, deep, &r); err != nil {
		return r, err
	}
	rows, err := s.DB.BlobHashes(ctx)
	if err != nil {
		return r, err
	}
	r.Rows = len(rows)
	onDisk := map[ctxkeep.Hash]bool{}
	if err := s.blobs.Walk(func(h ctxkeep.Hash, _ int64) error { onDisk[h] = true; return nil }); err != nil {
		return r, err
	}
	if err := s.blobs.WalkTemps(func(blob.Temp) error { r.Temps++; return nil }); err != nil {
		return r, err
	}
	r.Blobs = len(onDisk)
	var suspects []ctxkeep.Hash
	if deep {
		p.Start("verifying blobs", int64(len(rows)))
	}
	for _, h := range rows {
		p.Add(1)
		if !onDisk[h] {
			suspects = append(suspects, h)
			continue
		}
		delete(onDisk, h)
		if !deep {
			continue
		}
		switch _, err := s.blobs.Get(h); {
		case errors.Is(err, ctxkeep.ErrCorrupt):
			r.Corrupt = append(r.Corrupt, h)
		case errors.Is(err, ctxkeep.ErrNotFound):
			suspects = append(suspects, h)
		case err != nil:
			return r, err
		}
	}
	if r.Missing, err = s.DB.ConfirmMissing(ctx, suspects, s.absent); err != nil {
		return r, err
	}
	for h := range onDisk {
		if _, ok, err := s.DB.Blob(ctx, h); err != nil {
			return r, err
		} else if !ok {
			r.Unreferenced = append(r.Unreferenced, h)
		}
	}
	slices.Sort(r.Unreferenced)
	dangling, err := s.DB.DanglingEntries(ctx)
	if err != nil {
		return r, err
	}
	for _, e := range dangling {
		r.Dangling = append(r.Dangling, e.ID)
	}
	r.Verified = deep
	return r, nil
}

// checkIndex runs SQLite's own checks: quick_check, or with deep the full
// integrity_check and every FTS5 table's integrity check.
func (s *Store) checkIndex(ctx context.Context, deep bool, r *Report) error {
	if !deep {
		if err := s.DB.QuickCheck(ctx); err != nil {
			r.IndexProblems = append(r.IndexProblems, err.Error())
		}
		return nil
	}
	problems, err := s.DB.IntegrityCheck(ctx)
	if err != nil {
		return err
	}
	r.IndexProblems = problems
	tables, err := s.DB.FTSTables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := s.DB.FTSCommand(ctx, t, "integrity-check"); err != nil {
			r.FTSProblems = append(r.FTSProblems, err.Error())
		}
	}
	return nil
}

// absent reports whether blob h's file is gone.
func (s *Store) absent(h ctxkeep.Hash) bool {
	_, err := s.blobs.Stat(h)
	return errors.Is(err, ctxkeep.ErrNotFound)
}
