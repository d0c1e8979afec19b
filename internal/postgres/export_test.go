package postgres

import "context"

// EstimateRarity makes weighByRarity use the planner's estimates whatever
// the archive's size, after analysing the table so that they are real.
func EstimateRarity(ctx context.Context, db *DB) (restore func(), err error) {
	if _, err := db.pool.Exec(ctx, `ANALYZE chunks`); err != nil {
		return nil, err
	}
	old := exactCount
	exactCount = 0
	return func() { exactCount = old }, nil
}

// Analyze gathers the planner's statistics of the chunks, as autovacuum
// does on a server in use.
func Analyze(ctx context.Context, db *DB) error {
	_, err := db.pool.Exec(ctx, `ANALYZE chunks`)
	return err
}
