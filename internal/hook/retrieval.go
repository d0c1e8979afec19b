package hook

import (
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// retrieval is how what the model reads says to get stored content back:
// ctxkeep's MCP tools when the session has them, else the command line.
// The session has them when this hook runs from ctxkeep's plugin and the
// plugin starts the server (its .mcp.json; the client sets
// CLAUDE_PLUGIN_ROOT for a plugin's hooks), or when install registered
// the server in the client configuration this session reads: one small
// file in ctxkeep's state, not the client's busy ~/.claude.json. A Codex
// session never has them: ctxkeep registers its server with Claude Code
// only.
func (c *Call) retrieval() swap.Retrieval {
	if c.Agent == ctxkeep.AgentCodex || c.Agent == ctxkeep.AgentGemini {
		return swap.Retrieval{} // ctxkeep registers its MCP server with Claude Code only
	}
	getenv := c.Env.Getenv
	if root := getenv("CLAUDE_PLUGIN_ROOT"); root != "" {
		if _, err := os.Stat(filepath.Join(root, ".mcp.json")); err == nil {
			return swap.Retrieval{Tools: swap.PluginTools}
		}
	}
	config := claudecode.ClientConfigPath(getenv("HOME"), getenv("CLAUDE_CONFIG_DIR"), getenv("CLAUDE_CODE_CUSTOM_OAUTH_URL") != "")
	if claudecode.MCPRegistered(c.Dirs.MCPRegistrations(), config) {
		return swap.Retrieval{Tools: swap.UserTools}
	}
	return swap.Retrieval{}
}
