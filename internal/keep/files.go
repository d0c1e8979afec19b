package keep

import (
	"context"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
)

// FilesInPlay are the files a session worked on last, for ranking search
// results: a step touching them is more likely the one wanted.
func FilesInPlay(ctx context.Context, idx ctxkeep.ArchiveIndex, session string) ([]string, error) {
	cs, err := idx.ChunkHeads(ctx, session)
	if err != nil {
		return nil, err
	}
	return currentFiles(archive.Fold(session, cs, nil)), nil
}
