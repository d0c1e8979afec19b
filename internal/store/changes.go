package store

import (
	"context"

	"github.com/ctxkeep/ctxkeep"
)

// Change is a chunk with its change number: every chunk written (new, or
// replaced because its turn grew) gets a higher one.
type Change struct {
	Seq int64
	ctxkeep.Chunk
}

// ChunksAfter returns up to limit chunks of the project root (the folder
// or anything under it) written after change number after, oldest change
// first: what `ctxkeep team sync` has not pushed yet.
func (s *Store) ChunksAfter(ctx context.Context, root string, after int64, limit int) ([]Change, error) {
	cs, err := s.index.ChunksAfter(ctx, root, after, limit)
	out := make([]Change, len(cs))
	for i, c := range cs {
		out[i] = Change{Seq: c.Seq, Chunk: c.Chunk}
	}
	return out, err
}
