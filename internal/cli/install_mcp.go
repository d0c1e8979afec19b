package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// The MCP server is registered for the user, in the client's own
// configuration file (~/.claude.json), as `claude mcp add --scope user`
// would: the client writes that file all the time, so it is edited like
// settings.json (the client's lock, compare before rename, a backup,
// every other key as written). A list in ctxkeep's state says which
// configuration files register it, for the hook to read cheaply.

// mcpConfigPath is the client configuration file of this user.
func (a *app) mcpConfigPath() string {
	return claudecode.ClientConfigPath(a.Getenv("HOME"), a.Getenv("CLAUDE_CONFIG_DIR"), a.Getenv("CLAUDE_CODE_CUSTOM_OAUTH_URL") != "")
}

// installMCP registers the server in the client's configuration. It never
// fails the install: without the server, views name the command line.
func (a *app) installMCP(reg claudecode.Registration, dryRun bool) error {
	path := a.mcpConfigPath()
	res, err := claudecode.ApplyFile(path, func(b []byte) ([]byte, bool, error) {
		return claudecode.AddMCPServer(b, *reg.MCP)
	}, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	switch {
	case err != nil:
		fmt.Fprintf(a.Stdout, "warning: ctxkeep's MCP server was not registered: %v\n", err)
		fmt.Fprintln(a.Stdout, "         (the agent gets stored outputs back with `ctxkeep show` in its shell instead)")
		if dryRun {
			return nil
		}
		return a.noteMCP(path, false)
	case dryRun:
		return a.printDryRun(res, "install")
	case res.Changed:
		fmt.Fprintf(a.Stdout, "registered ctxkeep's MCP server in %s: tools %ssearch, show and recall\n", path, swap.UserTools)
		if res.Backup != "" {
			fmt.Fprintf(a.Stdout, "backup of the previous file: %s\n", res.Backup)
		}
	default:
		fmt.Fprintf(a.Stdout, "MCP server already registered in %s\n", path)
	}
	return a.noteMCP(path, true)
}

// uninstallMCP takes ctxkeep's server out of the client's configuration.
func (a *app) uninstallMCP(dryRun bool) error {
	path := a.mcpConfigPath()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if dryRun {
			return nil
		}
		return a.noteMCP(path, false)
	}
	res, err := claudecode.ApplyFile(path, claudecode.RemoveMCPServer, claudecode.ApplyOptions{DryRun: dryRun, Now: a.Now()})
	switch {
	case err != nil:
		return malformedHint(err, path)
	case dryRun:
		if res.Changed {
			return a.printDryRun(res, "uninstall")
		}
		return nil
	case res.Changed:
		fmt.Fprintf(a.Stdout, "removed ctxkeep's MCP server from %s (backup: %s)\n", path, res.Backup)
	}
	return a.noteMCP(path, false)
}

// noteMCP records whether the configuration file at path registers the
// server, for the hook.
func (a *app) noteMCP(path string, registered bool) error {
	d, err := a.dirs()
	if err != nil {
		return err
	}
	return claudecode.NoteMCPRegistered(d.MCPRegistrations(), path, registered)
}
