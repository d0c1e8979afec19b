package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clientConfig is ~/.claude.json as Claude Code 2.1.330 writes it
// (JSON.stringify with two spaces, no last newline), with a server of the
// user's.
const clientConfig = `{
  "numStartups": 3,
  "mcpServers": {
    "other": {
      "type": "stdio",
      "command": "x",
      "args": [],
      "env": {
        "TOKEN": "a\u00e9b"
      }
    }
  },
  "firstStartTime": "2026-11-27T00:10:54.991Z",
  "projects": {
    "/home/you/p": {
      "allowedTools": [],
      "lastCost": 0.1250
    }
  }
}`

// What `claude mcp add --scope user ctxkeep -- /opt/ctxkeep mcp` made of
// clientConfig (its own keys aside).
const withCtxkeep = `{
  "numStartups": 3,
  "mcpServers": {
    "other": {
      "type": "stdio",
      "command": "x",
      "args": [],
      "env": {
        "TOKEN": "a\u00e9b"
      }
    },
    "ctxkeep": {
      "type": "stdio",
      "command": "/opt/ctxkeep",
      "args": [
        "mcp"
      ],
      "env": {}
    }
  },
  "firstStartTime": "2026-11-27T00:10:54.991Z",
  "projects": {
    "/home/you/p": {
      "allowedTools": [],
      "lastCost": 0.1250
    }
  }
}`

// Adding the server gives what the client itself writes; adding it again
// changes nothing; removing it gives the file back byte for byte, the
// user's server and its escapes and numbers included.
func TestAddAndRemoveMCPServer(t *testing.T) {
	out, changed, err := AddMCPServer([]byte(clientConfig), CtxkeepMCPServer("/opt/ctxkeep"))
	if err != nil || !changed || string(out) != withCtxkeep {
		t.Fatalf("add (changed %t, %v):\n%s", changed, err, out)
	}
	if again, changed, err := AddMCPServer(out, CtxkeepMCPServer("/opt/ctxkeep")); err != nil || changed || string(again) != withCtxkeep {
		t.Errorf("a second add changed the file (%t, %v)", changed, err)
	}
	back, changed, err := RemoveMCPServer(out)
	if err != nil || !changed || string(back) != clientConfig {
		t.Errorf("remove (changed %t, %v):\n%s", changed, err, back)
	}
	if _, changed, _ := RemoveMCPServer(back); changed {
		t.Error("removing from a file without ctxkeep's server changed it")
	}
}

// A file without any server gets "mcpServers" at its end, and loses it
// again; an empty or missing file gets a new one, without a last newline
// like the client's, and a file with a last newline keeps it.
func TestMCPServersCreated(t *testing.T) {
	plain := "{\n  \"numStartups\": 1\n}\n"
	out, _, err := AddMCPServer([]byte(plain), CtxkeepMCPServer("/opt/ctxkeep"))
	if err != nil || !strings.HasSuffix(string(out), "      \"env\": {}\n    }\n  }\n}\n") || !strings.HasPrefix(string(out), "{\n  \"numStartups\": 1,\n  \"mcpServers\": {\n    \"ctxkeep\": {") {
		t.Fatalf("add to a file without servers (%v):\n%s", err, out)
	}
	if back, _, _ := RemoveMCPServer(out); string(back) != plain {
		t.Errorf("remove:\n%q\nwant\n%q", back, plain)
	}
	out, _, err = AddMCPServer(nil, CtxkeepMCPServer("/opt/ctxkeep"))
	if err != nil || !strings.HasPrefix(string(out), "{\n  \"mcpServers\": {\n") || strings.HasSuffix(string(out), "\n") {
		t.Errorf("add to an empty file (%v):\n%q", err, out)
	}
}

// An older ctxkeep's entry is updated; a server of the name that is not
// ctxkeep's, or a malformed file, is refused and left as it is.
func TestAddMCPServerRefuses(t *testing.T) {
	old := strings.Replace(withCtxkeep, "/opt/ctxkeep", "/usr/local/bin/ctxkeep", 1)
	if out, changed, err := AddMCPServer([]byte(old), CtxkeepMCPServer("/opt/ctxkeep")); err != nil || !changed || string(out) != withCtxkeep {
		t.Errorf("update of an older path (%t, %v):\n%s", changed, err, out)
	}
	theirs := strings.Replace(withCtxkeep, "/opt/ctxkeep", "/opt/someone-else", 1)
	if _, _, err := AddMCPServer([]byte(theirs), CtxkeepMCPServer("/opt/ctxkeep")); !errors.Is(err, ErrMCPNameTaken) {
		t.Errorf("a server called ctxkeep that is not ctxkeep's: %v", err)
	}
	if out, changed, err := RemoveMCPServer([]byte(theirs)); err != nil || changed || string(out) != theirs {
		t.Errorf("remove took someone else's server (%t, %v)", changed, err)
	}
	for _, bad := range []string{`{"mcpServers": [], "x": 1}`, `{"mcpServers": {"ctxkeep": {}, "ctxkeep": {}}}`, `{"a": 1,}`, `{"mcpServers": {}, "mcpServers": {}}`} {
		if _, _, err := AddMCPServer([]byte(bad), CtxkeepMCPServer("/opt/ctxkeep")); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// The client's configuration file is where the client keeps it
// (verified with 2.1.330): ~/.claude.json, or in CLAUDE_CONFIG_DIR, named
// for a custom OAuth server, or the legacy .config.json when it has
// content.
func TestClientConfigPath(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		dir    string
		custom bool
		want   string
	}{
		{"", false, filepath.Join(home, ".claude.json")},
		{cfg, false, filepath.Join(cfg, ".claude.json")},
		{"", true, filepath.Join(home, ".claude-custom-oauth.json")},
	} {
		if got := ClientConfigPath(home, tc.dir, tc.custom); got != tc.want {
			t.Errorf("ClientConfigPath(%q, %t) = %s, want %s", tc.dir, tc.custom, got, tc.want)
		}
	}
	legacy := filepath.Join(home, ".claude", ".config.json")
	os.MkdirAll(filepath.Dir(legacy), 0o755)
	os.WriteFile(legacy, nil, 0o600)
	if got := ClientConfigPath(home, "", false); got != filepath.Join(home, ".claude.json") {
		t.Errorf("with an empty legacy file: %s", got)
	}
	os.WriteFile(legacy, []byte("{}"), 0o600)
	if got := ClientConfigPath(home, "", false); got != legacy {
		t.Errorf("with a legacy file: %s", got)
	}
}

// The list of configuration files that register the server is kept one
// path a line, and goes when it is empty.
func TestNoteMCPRegistered(t *testing.T) {
	list := filepath.Join(t.TempDir(), "state", "mcp-registered")
	a, b := "/home/you/.claude.json", "/home/you/other/.claude.json"
	if MCPRegistered(list, a) {
		t.Fatal("registered before anything was noted")
	}
	for _, step := range []struct {
		path       string
		registered bool
		a, b       bool
	}{{a, true, true, false}, {b, true, true, true}, {a, true, true, true}, {a, false, false, true}, {b, false, false, false}} {
		if err := NoteMCPRegistered(list, step.path, step.registered); err != nil {
			t.Fatal(err)
		}
		if MCPRegistered(list, a) != step.a || MCPRegistered(list, b) != step.b {
			t.Errorf("after noting %s %t: %t %t", step.path, step.registered, MCPRegistered(list, a), MCPRegistered(list, b))
		}
	}
	if _, err := os.Stat(list); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty list stayed: %v", err)
	}
}

// A plugin folder starts the server too: .mcp.json at its root.
func TestWritePluginWithMCP(t *testing.T) {
	dir := t.TempDir()
	s := CtxkeepMCPServer("/opt/ctxkeep")
	files, err := WritePlugin(dir, Registration{Command: "/opt/ctxkeep hook", Hooks: []HookSpec{{Event: "Stop", Timeout: 35}}, MCP: &s}, "1")
	if err != nil || len(files) != 3 || files[2] != filepath.Join(dir, ".mcp.json") {
		t.Fatalf("files %v, %v", files, err)
	}
	assertFile(t, files[2], `{
  "mcpServers": {
    "ctxkeep": {
      "type": "stdio",
      "command": "/opt/ctxkeep",
      "args": [
        "mcp"
      ],
      "env": {}
    }
  }
}
`, 0o600)
}
