package sqlite

import (
	"context"

	"github.com/ctxkeep/ctxkeep"
)

// ChunkChange is a chunk with its change number (migration 0006): higher
// for every chunk written later.
type ChunkChange = ctxkeep.Change

// ChunksAfter returns up to limit chunks of the project root (the folder
// or anything under it) written after change number after, in the order
// they were written.
func (db *DB) ChunksAfter(ctx context.Context, root string, after int64, limit int) ([]ChunkChange, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+chunkColumns+`, seq FROM chunks
		WHERE (project = ?1 OR (project >= ?2 AND project < ?3)) AND seq > ?4 ORDER BY seq LIMIT ?5`,
		root, root+"/", root+"0", after, limit) // '0' follows '/': the range is everything under root/
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChunkChange
	for rows.Next() {
		var ch ChunkChange
		c, err := scanChunk(rows, &ch.Seq)
		if err != nil {
			return nil, err
		}
		ch.Chunk = c
		out = append(out, ch)
	}
	return out, rows.Err()
}
