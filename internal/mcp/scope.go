package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
)

// Store is the local store as the server reads it: outputs and archive,
// and the lookups within one project.
type Store interface {
	ctxkeep.Store
	ctxkeep.ProjectIndex
}

// MinPrefix is the fewest characters of an id, a key or a session the
// tools take: views and search give them whole (ids and keys: 12
// characters; sessions: 8 or more), and a shorter prefix is a guess.
const MinPrefix = 6

// The server serves one project: the project of the session that started
// it (Options.Project, which the client gives through CLAUDE_PROJECT_DIR
// or its working directory; internal/project). show, recall and search
// resolve what the model gives — an id, a key, a session, each a prefix —
// among that project's stored outputs and archived sessions only, so that
// an agent steered by a page or a README cannot read another project of
// its user's. mcp.scope = "all" (the user's config only) lifts that. The
// team archive is read as its grants allow, as `ctxkeep --team` reads it.

// checkPrefix refuses an id, key or session too short to be more than a
// guess.
func checkPrefix(what, s string) error {
	if s = strings.TrimSpace(s); len(s) < MinPrefix {
		return fmt.Errorf("%s %q is too short: give at least %d characters of it (the whole %s is best)", what, s, MinPrefix, what)
	}
	return nil
}

// entry is the stored output id names, within the server's scope.
func (s *server) entry(ctx context.Context, st Store, id string) (ctxkeep.Entry, error) {
	if err := checkPrefix("id", id); err != nil {
		return ctxkeep.Entry{}, err
	}
	if s.AllProjects {
		return st.Entry(ctx, id)
	}
	if s.Project == "" {
		return ctxkeep.Entry{}, errNoProject
	}
	return st.ProjectEntry(ctx, s.Project, id)
}

// archive is the archive the server may read: its project's, or all.
func (s *server) archive(st Store) (ctxkeep.ArchiveIndex, error) {
	if s.AllProjects {
		return st, nil
	}
	if s.Project == "" {
		return nil, errNoProject
	}
	return projectArchive{ArchiveIndex: st, in: st, project: s.Project}, nil
}

var errNoProject = fmt.Errorf("the MCP server does not know its project (the client gave no CLAUDE_PROJECT_DIR and no working directory), so it reads nothing; mcp.scope = \"all\" in your own config lifts that")

// projectArchive is the archive of one project: lookups by key and
// session resolve among its chunks and sessions, and whatever is read of a
// session is its chunks in the project.
type projectArchive struct {
	ctxkeep.ArchiveIndex
	in      ctxkeep.ProjectIndex
	project string
}

func (a projectArchive) Chunk(ctx context.Context, key string) (ctxkeep.Chunk, error) {
	return a.in.ProjectChunk(ctx, a.project, key)
}

func (a projectArchive) ChunkSessions(ctx context.Context) ([]string, error) {
	return a.in.ProjectSessions(ctx, a.project)
}

func (a projectArchive) TurnRange(ctx context.Context, session string, from, to int) ([]ctxkeep.Chunk, error) {
	return a.own(a.ArchiveIndex.TurnRange(ctx, session, from, to))
}

func (a projectArchive) Chunks(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return a.own(a.ArchiveIndex.Chunks(ctx, session))
}

func (a projectArchive) ChunkHeads(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return a.own(a.ArchiveIndex.ChunkHeads(ctx, session))
}

func (a projectArchive) SearchChunks(ctx context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, error) {
	q.Project = a.project
	return a.ArchiveIndex.SearchChunks(ctx, q)
}

// own keeps the project's chunks.
func (a projectArchive) own(cs []ctxkeep.Chunk, err error) ([]ctxkeep.Chunk, error) {
	return slices.DeleteFunc(cs, func(c ctxkeep.Chunk) bool { return c.Project != a.project }), err
}
