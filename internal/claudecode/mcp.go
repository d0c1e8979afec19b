package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

// MCPServerName is the name ctxkeep's MCP server is registered under:
// the client names its tools mcp__ctxkeep__<tool>.
const MCPServerName = "ctxkeep"

// MCPServer is a stdio server entry, as `claude mcp add` writes it:
// {"type": "stdio", "command": …, "args": […], "env": {}}.
type MCPServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"` // run as is, not through a shell
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// CtxkeepMCPServer is the entry that starts exe as ctxkeep's server.
func CtxkeepMCPServer(exe string) MCPServer {
	return MCPServer{Type: "stdio", Command: exe, Args: []string{"mcp"}, Env: map[string]string{}}
}

// IsCtxkeep reports whether the entry starts ctxkeep's server: a program
// called ctxkeep, by any path, with the single argument "mcp".
func (s MCPServer) IsCtxkeep() bool {
	return programName(s.Command) == "ctxkeep" && slices.Equal(s.Args, []string{"mcp"})
}

// ErrMCPNameTaken: the client's configuration already has a server called
// ctxkeep that does not run ctxkeep; it is left as it is.
var ErrMCPNameTaken = errors.New("has an MCP server called \"ctxkeep\" that is not ctxkeep's")

// ClientConfigPath is the client's own configuration file — not
// settings.json — where `claude mcp add --scope user` registers servers:
// <CLAUDE_CONFIG_DIR, else home>/.claude.json, named .claude-custom-oauth.json
// when CLAUDE_CODE_CUSTOM_OAUTH_URL is set; a legacy <config dir>/.config.json
// that is not empty is used instead (Claude Code 2.1.330 does all three).
func ClientConfigPath(home, claudeConfigDir string, customOAuth bool) string {
	legacy := filepath.Join(ConfigDir(home, claudeConfigDir), ".config.json")
	if st, err := os.Stat(legacy); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		return legacy
	}
	name := ".claude.json"
	if customOAuth {
		name = ".claude-custom-oauth.json"
	}
	dir := claudeConfigDir
	if dir == "" {
		dir = home
	}
	return filepath.Join(dir, name)
}

// FindMCPServer returns the server registered under name in the client's
// configuration (its content), if any.
func FindMCPServer(config []byte, name string) (MCPServer, bool, error) {
	servers, _, err := parseMCPServers(config)
	if err != nil {
		return MCPServer{}, false, err
	}
	raw := servers.Get(name)
	if raw == nil {
		return MCPServer{}, false, nil
	}
	var s MCPServer
	if err := json.Unmarshal(raw, &s); err != nil {
		return MCPServer{}, false, fmt.Errorf("%w: \"mcpServers\".%q is %v", ErrMalformed, name, err)
	}
	return s, true, nil
}

// AddMCPServer registers s as ctxkeep's server in the client's
// configuration (its content), or updates an entry an older ctxkeep left;
// a server of the name that is not ctxkeep's is an error wrapping
// ErrMCPNameTaken. Every other key and server is kept as written, and the
// file keeps its last newline or its lack of one (the client writes none).
func AddMCPServer(config []byte, s MCPServer) ([]byte, bool, error) {
	old, found, err := FindMCPServer(config, MCPServerName)
	switch {
	case err != nil:
		return nil, false, err
	case found && !old.IsCtxkeep():
		return nil, false, fmt.Errorf("%w (it runs %q); rename or remove it, then run the command again", ErrMCPNameTaken, old.Command)
	}
	return setMCPServer(config, rawjson.Encode(s))
}

// RemoveMCPServer takes ctxkeep's server out of the client's
// configuration (its content), and "mcpServers" with it when nothing else
// is left there; anyone else's server stays.
func RemoveMCPServer(config []byte) ([]byte, bool, error) {
	old, found, err := FindMCPServer(config, MCPServerName)
	if err != nil || !found || !old.IsCtxkeep() {
		return config, false, err
	}
	return setMCPServer(config, nil)
}

// parseMCPServers parses the configuration and its "mcpServers" object
// (empty when there is none).
func parseMCPServers(config []byte) (rawjson.Object, settings, error) {
	doc, err := parseSettings(config)
	if err != nil {
		return nil, doc, err
	}
	if doc.top.Count("mcpServers") > 1 {
		return nil, doc, fmt.Errorf("%w: \"mcpServers\" appears more than once", ErrMalformed)
	}
	servers := rawjson.Object{}
	if raw := doc.top.Get("mcpServers"); raw != nil {
		if servers, err = rawjson.ParseObject(raw); err != nil {
			return nil, doc, fmt.Errorf("%w: \"mcpServers\" is %v", ErrMalformed, err)
		}
	}
	if servers.Count(MCPServerName) > 1 {
		return nil, doc, fmt.Errorf("%w: \"mcpServers\".%q appears more than once", ErrMalformed, MCPServerName)
	}
	return servers, doc, nil
}

// setMCPServer sets (or, with a nil value, removes) ctxkeep's entry.
func setMCPServer(config []byte, value json.RawMessage) ([]byte, bool, error) {
	servers, doc, err := parseMCPServers(config)
	if err != nil {
		return nil, false, err
	}
	if old := servers.Get(MCPServerName); value != nil && old != nil && sameJSON(old, value) {
		return config, false, nil
	}
	servers = slices.Clone(servers)
	if value == nil {
		servers = slices.DeleteFunc(servers, func(m rawjson.Member) bool { return m.Name == MCPServerName })
	} else {
		servers = servers.Set(MCPServerName, value)
	}
	var member json.RawMessage // nil: "mcpServers" goes, left empty by the removal
	if len(servers) > 0 {
		member = servers.Marshal()
	}
	out, changed, err := setMember(config, doc.top, "mcpServers", member)
	if err != nil || !changed {
		return out, changed, err
	}
	// The client writes the file without a last newline; keep what it has.
	if trimmed := bytes.TrimRight(config, " \t\r\n"); len(trimmed) == 0 || len(trimmed) == len(config) {
		out = bytes.TrimRight(out, "\r\n")
	}
	return out, true, nil
}

// writePluginMCP writes the plugin's .mcp.json, which starts s when the
// plugin is loaded: the client then names its tools
// mcp__plugin_ctxkeep_ctxkeep__<tool>.
func writePluginMCP(dir string, s MCPServer) (string, error) {
	path := filepath.Join(dir, ".mcp.json")
	doc := map[string]map[string]MCPServer{"mcpServers": {MCPServerName: s}}
	return path, writeJSONFile(path, doc)
}

// The hook must know cheaply whether the session has ctxkeep's tools, to
// name them in views: it reads a small file in ctxkeep's state folder,
// which install and uninstall keep, rather than the client's large and
// busy configuration on every call.

// NoteMCPRegistered records (or, with registered false, forgets) that the
// client configuration file at config registers ctxkeep's server, in the
// list file at list (one path a line).
func NoteMCPRegistered(list, config string, registered bool) error {
	paths := readList(list)
	has := slices.Contains(paths, config)
	switch {
	case registered && !has:
		paths = append(paths, config)
	case !registered && has:
		paths = slices.DeleteFunc(paths, func(p string) bool { return p == config })
	default:
		return nil
	}
	if len(paths) == 0 {
		if err := os.Remove(list); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := fsx.MkdirPrivate(filepath.Dir(list)); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(list, []byte(strings.Join(paths, "\n")+"\n"), fsx.FilePerm)
}

// MCPRegistered reports whether the list file at list says that the
// client configuration file at config registers ctxkeep's server.
func MCPRegistered(list, config string) bool {
	return slices.Contains(readList(list), config)
}

func readList(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	return out
}
