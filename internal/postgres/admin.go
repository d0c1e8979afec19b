package postgres

import (
	"context"
	"fmt"

	"github.com/ctxkeep/ctxkeep"
	"github.com/jackc/pgx/v5"
)

// The administrator's side: `ctxkeep team init`, `grant` and `revoke`,
// run as the role that owns the tables (which row-level security does not
// restrict). Members are login roles the administrator created (createuser);
// each is made a member of MemberRole, which holds the privileges, and is
// granted projects one by one in the grants table, which the policies read.

// MemberRole is the group role holding what members may do on the schema.
func (db *DB) MemberRole() string { return db.schema + "_member" }

// Init makes the schema usable by members: it creates the member role if
// missing and grants it reading, pushing (insert and update, never delete)
// and the blob function. The schema itself is created and migrated by
// Open with Migrate. Running it again changes nothing.
func (db *DB) Init(ctx context.Context) error {
	member := pgx.Identifier{db.MemberRole()}.Sanitize()
	schema := pgx.Identifier{db.schema}.Sanitize()
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, db.MemberRole()).Scan(&exists); err != nil {
		return describe(err)
	}
	if !exists {
		// Roles belong to the whole server: another database's init may
		// create the same one at the same moment.
		if _, err := db.pool.Exec(ctx, `CREATE ROLE `+member+` NOLOGIN`); err != nil && Code(err) != "42710" && Code(err) != "23505" {
			return fmt.Errorf("create role %s (the administrator needs CREATEROLE): %w", db.MemberRole(), describe(err))
		}
	}
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		for _, s := range []string{
			`GRANT USAGE ON SCHEMA ` + schema + ` TO ` + member,
			`GRANT SELECT ON schema_version, projects, grants, blobs TO ` + member,
			`GRANT SELECT, INSERT, UPDATE ON sessions, entries TO ` + member,
			`GRANT SELECT, INSERT, UPDATE, DELETE ON chunks TO ` + member, // their own only (policy unpush)
			`GRANT EXECUTE ON FUNCTION put_blob(text, bigint, bytea) TO ` + member,
			`GRANT EXECUTE ON FUNCTION search_chunks(text, text, text[], text, text, text, integer, integer, float8, real[]) TO ` + member,
		} {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, describe(err))
			}
		}
		return nil
	})
}

// Grant lets role read project and push to it, making role a member.
func (db *DB) Grant(ctx context.Context, role, project string) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
			return describe(err)
		}
		if !exists {
			return fmt.Errorf("no role %q on the server: create it first (createuser %s, or CREATE ROLE %s LOGIN)", role, role, role)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO projects (name) VALUES ($1) ON CONFLICT DO NOTHING`, project); err != nil {
			return describe(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO grants (role, project) VALUES ($1, $2) ON CONFLICT DO NOTHING`, role, project); err != nil {
			return describe(err)
		}
		if _, err := tx.Exec(ctx, `GRANT `+pgx.Identifier{db.MemberRole()}.Sanitize()+` TO `+pgx.Identifier{role}.Sanitize()); err != nil {
			return fmt.Errorf("make %s a member (run `ctxkeep team init` first): %w", role, describe(err))
		}
		return nil
	})
}

// Revoke takes project away from role: from then on it reads nothing of
// it. What it pushed stays. A role left with no project stops being a
// member.
func (db *DB) Revoke(ctx context.Context, role, project string) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM grants WHERE role = $1 AND project = $2`, role, project)
		if err != nil {
			return describe(err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%s was not granted %q", role, project)
		}
		var left bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM grants WHERE role = $1)`, role).Scan(&left); err != nil {
			return describe(err)
		}
		if !left {
			if _, err := tx.Exec(ctx, `REVOKE `+pgx.Identifier{db.MemberRole()}.Sanitize()+` FROM `+pgx.Identifier{role}.Sanitize()); err != nil {
				return describe(err)
			}
		}
		return nil
	})
}

// GrantRow is a role's access to a project.
type GrantRow = ctxkeep.TeamGrant

// Grants lists who may read what (the role's own grants for a member).
func (db *DB) Grants(ctx context.Context) ([]GrantRow, error) {
	rows, err := db.pool.Query(ctx, `SELECT role, project FROM grants ORDER BY project, role`)
	if err != nil {
		return nil, describe(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[GrantRow])
	return out, describe(err)
}
