package postgres

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// An error of a violated constraint names the constraint, not the row:
// the row holds pushed text and an output's bytes, and errors go to
// sync.log and the terminal.
func TestDescribeQuotesNoRow(t *testing.T) {
	secret := "hunter2 output bytes"
	err := describe(&pgconn.PgError{Code: "23514", Message: `new row for relation "blobs" violates check constraint "blobs_check"`,
		Detail: `Failing row contains (abc, 7, \x` + hex.EncodeToString([]byte(secret)) + `, 2026-01-01).`, ConstraintName: "blobs_check"})
	if got := err.Error(); strings.Contains(got, hex.EncodeToString([]byte(secret))) || strings.Contains(got, "Failing row") ||
		!strings.Contains(got, "blobs_check") {
		t.Errorf("describe = %q", got)
	}
	err = describe(&pgconn.PgError{Code: "23505", Message: "duplicate key value violates unique constraint", Detail: "Key (key)=(" + secret + ") already exists."})
	if strings.Contains(err.Error(), secret) {
		t.Errorf("describe = %q", err)
	}
	err = describe(&pgconn.PgError{Code: "42501", Message: "permission denied for table chunks", Hint: "ask"})
	if err.Error() != "permission denied for table chunks; hint: ask" {
		t.Errorf("describe = %q", err)
	}
}
