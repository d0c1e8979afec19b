package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/mcp"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// mcpTools are the tools the server must list.
var mcpTools = []string{"recall", "search", "show"}

// checkMCP finds ctxkeep's server in the client's configuration, starts
// it as the client would, and asks it for its tools.
func (a *app) checkMCP(ctx context.Context) check {
	c := check{Name: "mcp"}
	path := a.mcpConfigPath()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fail(c, err.Error(), "")
	}
	s, found, err := claudecode.FindMCPServer(data, claudecode.MCPServerName)
	switch {
	case err != nil:
		return fail(c, fmt.Sprintf("%s: %v", path, err), "")
	case (!found || !s.IsCtxkeep()) && a.codexOnly():
		c.Status, c.Detail = statusOK, "not registered with Claude Code (Codex only): Codex gets stored outputs back through `ctxkeep show` in its shell"
		return c
	case !found || !s.IsCtxkeep():
		c.Status, c.Detail = statusWarn, fmt.Sprintf("ctxkeep's MCP server is not registered in %s: the agent gets stored outputs back through its shell only", path)
		c.Hint = "run `ctxkeep install` to register it"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Command, s.Args...)
	for k, v := range s.Env {
		cmd.Env = append(cmd.Environ(), k+"="+v)
	}
	start := time.Now()
	name, tools, err := mcp.Probe(ctx, cmd)
	if err != nil {
		return fail(c, fmt.Sprintf("%s mcp (registered in %s) did not answer: %v", s.Command, path, err), "run `ctxkeep install` again to register this binary")
	}
	slices.Sort(tools)
	if name != mcp.Name || !slices.Equal(tools, mcpTools) {
		return fail(c, fmt.Sprintf("%s mcp answered as %q with tools %s", s.Command, name, strings.Join(tools, ", ")), "run `ctxkeep install` again to register this binary")
	}
	c.Status = statusOK
	c.Detail = fmt.Sprintf("%s mcp, registered in %s, answers in %s: tools %ssearch, show and recall",
		s.Command, path, time.Since(start).Round(time.Millisecond), swap.UserTools)
	if d, err := a.dirs(); err == nil && !claudecode.MCPRegistered(d.MCPRegistrations(), path) {
		c.Status, c.Hint = statusWarn, "run `ctxkeep install` once more, so that views name the tools instead of the command line"
	}
	return c
}
