package cli

import (
	"context"
	"flag"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/hook"
	"github.com/ctxkeep/ctxkeep/internal/mcp"
)

var mcpCmd = &command{
	name:    "mcp",
	usage:   "mcp",
	summary: "serve ctxkeep's tools to Claude Code over MCP (stdio)",
	group:   groupClient,
	long: `What Claude Code starts for each session once ` + "`ctxkeep install`" + ` registered it: an MCP server on
stdin and stdout with three tools, so that the agent gets stored outputs and archived steps back
without a shell. search finds archived steps (this project's, or one session's), show prints a
stored output, recall an archived step, each narrowed as the commands of the same names narrow
(lines, grep with context, head, tail, failures). The tools read the project the server was
started in only (its stored outputs and archived sessions; mcp.scope = "all" in your own config
lifts that), and take ids, keys and sessions of 6 characters or more. A malformed message, or one
over 4 MiB, is answered with a JSON-RPC error. With a team archive configured ([team] dsn),
search and recall also take team, as the commands' --team. A result over 20,000 characters is itself
narrowed to its first and last lines, with a line saying how to ask for the rest. A show counts
as a retrieval by the agent. The store is opened for each call only.`,
	setup: func(*flag.FlagSet) runFunc {
		return func(ctx context.Context, a *app, pos []string) error {
			if err := noArgs("mcp", pos); err != nil {
				return err
			}
			hook.IgnoreSIGPIPE() // a client that went away must not kill the server mid-write
			o := mcp.Options{Open: a.storeForCall, Project: a.projectDir(), Now: a.Now, Version: version()}
			if cfg, _, err := a.config(); err == nil {
				o.AllProjects = cfg.MCP.Scope == config.MCPScopeAll
				if cfg.Team.DSN != "" {
					o.Team, o.TeamProject = a.teamForCall, a.teamProjectHere()
				}
			}
			return mcp.Serve(ctx, o, a.Stdin, a.Stdout)
		}
	},
}

// storeForCall opens the store for one MCP call, and closes it after. It
// opens it as the hooks do (no migration to check for); only a store
// from an older version, before any command migrated it, is migrated.
func (a *app) storeForCall(ctx context.Context) (mcp.Store, func(), error) {
	r, err := a.env()
	if err != nil {
		return nil, nil, err
	}
	st, err := r.Store(ctx, ctxkeep.OpenExisting)
	if err != nil {
		r.Close()
		st, err = r.Store(ctx, ctxkeep.OpenMigrate)
	}
	if err != nil {
		return nil, nil, err
	}
	return st, r.Close, nil
}

// teamForCall connects to the team archive for one MCP call.
func (a *app) teamForCall(ctx context.Context) (mcp.Team, func(), error) {
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	return teamArchive{db}, func() { db.Close() }, nil
}

// teamArchive is the team archive as the MCP server reads it.
type teamArchive struct{ ctxkeep.TeamArchive }

func (t teamArchive) SearchTeam(ctx context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, map[string]string, error) {
	hits, err := t.Search(ctx, q)
	if err != nil {
		return nil, nil, teamError(err)
	}
	owners := map[string]string{}
	plain := make([]ctxkeep.ChunkHit, len(hits))
	for i, h := range hits {
		owners[h.Key], plain[i] = h.Owner, h.ChunkHit
	}
	return plain, owners, nil
}
