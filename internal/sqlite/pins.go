package sqlite

import (
	"context"
	"database/sql"

	"github.com/ctxkeep/ctxkeep"
)

// SetPin sets the pin level and reason of the entry with id, or the only
// one whose id starts with it, and returns the entry as it is now.
func (db *DB) SetPin(ctx context.Context, id string, level ctxkeep.PinLevel, reason string) (ctxkeep.Entry, error) {
	e, err := db.Entry(ctx, id)
	if err != nil {
		return e, err
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE entries SET pin_level = ?, pin_reason = ? WHERE id = ?`, level.String(), reason, e.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ctxkeep.Errorf(ctxkeep.ErrNotFound, "no such entry: %q (removed meanwhile)", e.ID)
		}
		return nil
	})
	e.PinLevel, e.PinReason = level, reason
	return e, err
}
