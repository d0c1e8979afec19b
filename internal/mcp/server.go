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
	Open func(ctx context.Context) (st ctxkeep.Store, done func(), err error)
	// Project is the project whose sessions search looks in by default
	// (internal/project; the client sets CLAUDE_PROJECT_DIR for its MCP
	// servers).
	Project string
	Now     func() time.Time
	Version string
}

// New makes the server with its three tools.
func New(o Options) *sdk.Server {
	s := &server{Options: o}
	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Version: o.Version},
		&sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}}})
	sdk.AddTool(srv, tool("search", searchDescription, searchSchema), s.search)
	sdk.AddTool(srv, tool("show", showDescription, showSchema), s.show)
	sdk.AddTool(srv, tool("recall", recallDescription, recallSchema), s.recall)
	return srv
}

// Serve answers the client, one JSON-RPC message a line on in and out
// (the process's stdin and stdout), until it hangs up.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	return New(o).Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

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

// withStore runs f with the store open.
func (s *server) withStore(ctx context.Context, f func(ctxkeep.Store) (string, error)) (*sdk.CallToolResult, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, done, err := s.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	out, err := f(st)
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
