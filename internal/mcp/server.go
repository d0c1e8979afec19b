// Package mcp is ctxkeep's MCP server (`ctxkeep mcp`, over stdio): the
// agent reaches its stored outputs and its archive as three tools —
// search, show and recall — without a shell, at almost no context cost.
//
// The tools are thin: each calls the services the command line calls
// (internal/excerpt for narrowing, internal/recall for the archive's text,
// internal/search for ranking), with the same checks and the same
// parameter names as the command's flags, and returns text. What costs
// context is kept small on purpose: no server instructions (the client
// puts them in every request), short descriptions, hand-written schemas,
// and results bounded to MaxResult characters.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxkeep/ctxkeep"
)

// Name is the server's name: Claude Code names its tools
// mcp__ctxkeep__search, mcp__ctxkeep__show and mcp__ctxkeep__recall.
const Name = "ctxkeep"

// Options are what the server works with.
type Options struct {
	// Open opens the store for one call, and done closes it. The server
	// holds nothing open between calls: a server lives as long as its
	// session, and must never keep the index (or a newer binary's
	// migration) waiting.
	Open func(ctx context.Context) (st Store, done func(), err error)
	// Project is the project the server serves (scope.go): the project of
	// the session that started it (internal/project: the client's
	// CLAUDE_PROJECT_DIR, else its working directory's work tree).
	Project string
	// AllProjects lets the tools read every project's outputs and archive
	// (mcp.scope = "all"); search still looks in Project by default.
	AllProjects bool
	Now         func() time.Time
	Version     string
	// Team opens the team archive (PostgreSQL) for one call; nil when none
	// is configured, and search and recall then have no team parameter.
	Team func(ctx context.Context) (t Team, done func(), err error)
	// TeamProject is this folder's team project, which a team search looks
	// in unless given a session; "" for every project the role may read.
	TeamProject string
}

// Team is the team archive as far as the user's role may read it: a store
// that recall reads, whose search says whose each session is.
type Team interface {
	ctxkeep.Store
	// SearchTeam is SearchChunks with the role that pushed each hit's
	// session, by chunk key.
	SearchTeam(ctx context.Context, q ctxkeep.ChunkQuery) (hits []ctxkeep.ChunkHit, owners map[string]string, err error)
}

// New makes the server with its three tools.
func New(o Options) *sdk.Server {
	s := &server{Options: o}
	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Version: o.Version},
		&sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}}})
	searchD, searchS, recallD, recallS := searchDescription, searchSchema, recallDescription, recallSchema
	if o.Team != nil { // only then: every word of a schema costs every session context
		searchD, searchS = searchD+teamSearchDescription, withTeam(searchS)
		recallD, recallS = recallD+teamRecallDescription, withTeam(recallS)
	}
	sdk.AddTool(srv, tool("search", searchD, searchS), s.search)
	sdk.AddTool(srv, tool("show", showDescription, showSchema), s.show)
	sdk.AddTool(srv, tool("recall", recallD, recallS), s.recall)
	return srv
}

// Serve answers the client, one JSON-RPC message a line on in and out
// (the process's stdin and stdout), until it hangs up. A line that is not
// a message is answered with an error, and the server goes on (frames.go).
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	return New(o).Run(ctx, stdio{in: in, out: out})
}

func tool(name, description, schema string) *sdk.Tool {
	return &sdk.Tool{Name: name, Description: description, InputSchema: json.RawMessage(schema),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}
}

// server runs one call at a time: calls are short, and the store is
// opened and closed around each.
type server struct {
	Options
	mu sync.Mutex
}

// withArchive runs f with the archive the server may read (scope.go) and
// the store its outputs are in: the local store, or with team the team
// archive.
func (s *server) withArchive(ctx context.Context, team bool, f func(ctxkeep.ArchiveIndex, ctxkeep.Store, Team) (string, error)) (*sdk.CallToolResult, any, error) {
	if !team {
		return s.withStore(ctx, func(st Store) (string, error) {
			idx, err := s.archive(st)
			if err != nil {
				return "", err
			}
			return f(idx, st, nil)
		})
	}
	if s.Team == nil {
		return nil, nil, errors.New("no team archive is configured ([team] dsn in the user's config)")
	}
	return withOpen(s, ctx, s.Team, func(t Team) (string, error) { return f(t, t, t) })
}

// withStore runs f with the store open.
func (s *server) withStore(ctx context.Context, f func(Store) (string, error)) (*sdk.CallToolResult, any, error) {
	return withOpen(s, ctx, s.Open, f)
}

// withOpen runs f on what open opens, one call at a time, and closes it
// after; f's text is the tool's result, its error a result with isError.
func withOpen[T any](s *server, ctx context.Context, open func(context.Context) (T, func(), error), f func(T) (string, error)) (*sdk.CallToolResult, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, done, err := open(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	out, err := f(v)
	if err != nil {
		return nil, nil, err // the SDK makes it a result with isError
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out}}}, nil, nil
}

// Probe starts a server with cmd, as the client would, and returns the
// server's name and its tools' names: `ctxkeep doctor` checks that the
// registered command answers. The server is stopped before Probe returns.
func Probe(ctx context.Context, cmd *exec.Cmd) (server string, tools []string, err error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "ctxkeep-doctor", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return "", nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return "", nil, err
	}
	for _, t := range res.Tools {
		tools = append(tools, t.Name)
	}
	return cs.InitializeResult().ServerInfo.Name, tools, nil
}
