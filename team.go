package ctxkeep

import (
	"context"
	"errors"
	"time"
)

// The team archive: a Store on a server that several users push their
// projects' archives to, each row its pusher's, each project read by the
// roles granted it (internal/postgres implements it; internal/team syncs
// to it; docs/TEAM.md).

// TeamArchive is the team archive as a member uses it: read as a Store
// (search and recall), written by pushes, and asked who one is.
type TeamArchive interface {
	Store
	// Push writes p in one transaction, as the connected role: rows new or
	// changed are counted, the same push twice writes nothing new. What
	// another role wrote under the same keys is theirs and changes nothing.
	Push(ctx context.Context, p TeamPush) (TeamPushed, error)
	// Search is SearchChunks with whose each hit is.
	Search(ctx context.Context, q ChunkQuery) ([]TeamHit, error)
	// TeamChunk is Chunk with whose it is.
	TeamChunk(ctx context.Context, key string) (TeamOwned, error)
	// Session is a session as the team sees it.
	Session(ctx context.Context, id string) (TeamSession, error)
	// Projects lists the projects the role may read.
	Projects(ctx context.Context) ([]string, error)
	// Counts counts the rows the role can read in project (all when "").
	Counts(ctx context.Context, project string) (TeamCount, error)
	// Identity names the archive (server, database, schema, role): one
	// sync cursor per identity.
	Identity(ctx context.Context) (string, error)
	// Role is the connected role.
	Role(ctx context.Context) (string, error)
	// TLS reports whether the connection is encrypted.
	TLS(ctx context.Context) (bool, error)
	// Schema and SchemaVersion say where the tables are, and their version.
	Schema() string
	SchemaVersion(ctx context.Context) (int, error)
	Close() error
}

// TeamAdmin is the team archive as its administrator sets it up.
type TeamAdmin interface {
	TeamArchive
	// Init creates or upgrades the schema and the member role.
	Init(ctx context.Context) error
	// Grant lets role read and write project; Revoke takes it back.
	Grant(ctx context.Context, role, project string) error
	Revoke(ctx context.Context, role, project string) error
	// Grants lists who may read what (the role's own grants for a member).
	Grants(ctx context.Context) ([]TeamGrant, error)
	// MemberRole is the role every member is made a member of.
	MemberRole() string
}

// Errors of the team archive, which its adapter wraps.
var (
	// ErrTeamSchema: the server's schema is missing, older or newer than
	// this ctxkeep.
	ErrTeamSchema = errors.New("team database schema does not match this ctxkeep")
	// ErrNotMember: the connected role is not a member of the archive.
	ErrNotMember = errors.New("not a member of the team archive")
	// ErrUnreachable: the server could not be reached or went away.
	ErrUnreachable = errors.New("team archive unreachable")
)

// SQLState is the SQLSTATE code a database server's error carries ("" for
// another error): what the command line's hints tell refusals apart by.
func SQLState(err error) string {
	var e interface{ SQLState() string }
	if errors.As(err, &e) {
		return e.SQLState()
	}
	return ""
}

// TeamPush is one batch of a sync: what one project's new and changed
// chunks bring, with the sessions and the outputs they refer to.
type TeamPush struct {
	Project  string
	Sessions []TeamSession
	Blobs    []TeamBlob
	Entries  []Entry
	Chunks   []Chunk
}

// TeamSession is a session as the team sees it: whose (the role that
// pushed it), which project, when.
type TeamSession struct {
	ID        string    `json:"session_id"`
	Owner     string    `json:"owner"`
	Project   string    `json:"project"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Chunks    int       `json:"chunks"`
}

// TeamBlob is an output's bytes as pushed: Data nil when only its entry
// is (team.push_outputs off); the server checks Size and Hash against
// Data.
type TeamBlob struct {
	Hash Hash
	Size int64
	Data []byte
}

// TeamPushed counts what a push wrote: rows new or changed, not those
// that were there already.
type TeamPushed struct {
	Chunks  int
	Entries int
}

// TeamHit is a search hit of the team archive, with whose it is.
type TeamHit struct {
	ChunkHit
	Owner string `json:"owner"`
}

// TeamOwned is a chunk of the team archive, with whose it is.
type TeamOwned struct {
	Chunk
	Owner string `json:"owner"`
}

// TeamGrant is one role granted one project.
type TeamGrant struct {
	Role    string `json:"role"`
	Project string `json:"project"`
}

// TeamCount counts the rows a role can read.
type TeamCount struct {
	Sessions, Chunks, Entries, Texts int64
}
