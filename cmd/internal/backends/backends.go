// Package backends builds the concrete adapters every executable has — the
// local store (blob files and the SQLite index) and the journal — for the
// composition roots (cmd/ctxkeep, cmd/ctxkeep-hook), which hand them on as
// the root package's interfaces; the team archive is cmd/internal/teamarchive.
// Nothing outside cmd/ constructs an adapter (TestArchitecture).
package backends

import (
	"context"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/journal"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// Local are the backends every executable has: the local store and the
// journal.
func Local() app.Backends {
	return app.Backends{OpenLocal: openLocal, Journal: openJournal}
}

func openLocal(ctx context.Context, indexPath, blobDir string, mode ctxkeep.OpenMode, now func() time.Time) (ctxkeep.Local, error) {
	st, err := store.Open(ctx, indexPath, blobDir, mode, now)
	if err != nil {
		return nil, err // not a nil *store.Store in a non-nil interface
	}
	return st, nil
}

func openJournal(dir string) ctxkeep.EventSink { return journal.Sink{Dir: dir} }
