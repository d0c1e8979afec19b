package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Each refusal of the team server gets the hint of its real cause: the
// server's message tells them apart (they share SQLSTATE 42501).
func TestTeamErrorNamesTheCause(t *testing.T) {
	refused := func(msg string) error { return &pgconn.PgError{Code: "42501", Message: msg} }
	for _, c := range []struct {
		err       error
		want, not string
	}{
		{fmt.Errorf("create role ctxkeep_member (the administrator needs CREATEROLE): %w", refused("permission denied to create role")),
			"CREATEROLE", "not granted"},
		{fmt.Errorf("team database: create schema \"ctxkeep\": %w", refused("permission denied for database team")),
			"CREATE on the database", "not granted"},
		{fmt.Errorf("push acme/api to the team archive: %w", refused(`new row violates row-level security policy for table "sessions"`)),
			"not granted the project", "member"},
		{refused("permission denied for table chunks"), "not a member", "granted the project"},
		{fmt.Errorf("team database: migration 0003_owner_keys.sql: %w", refused("must be owner of table chunks")),
			"tables' owner", "not granted"},
	} {
		var h *hintedError
		if !errors.As(teamError(c.err), &h) || !strings.Contains(h.hint, c.want) || strings.Contains(h.hint, c.not) {
			t.Errorf("teamError(%v): hint %q; want %q, without %q", c.err, h.hint, c.want, c.not)
		}
	}
}
