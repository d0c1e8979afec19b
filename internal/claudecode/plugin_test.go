package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWritePlugin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugin")
	reg := Registration{
		Command: "${CLAUDE_PLUGIN_ROOT}/bin/ctxkeep hook",
		Hooks:   []HookSpec{{Event: "PostToolUse", Matcher: "Bash", Timeout: 30}, {Event: "SessionEnd", Timeout: 10}},
	}
	manifest := filepath.Join(dir, ".claude-plugin", "plugin.json")
	hooks := filepath.Join(dir, "hooks", "hooks.json")

	for range 2 { // the second run rewrites ctxkeep's own files
		files, err := WritePlugin(dir, reg, "1.2.3")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{manifest, hooks}; !slices.Equal(files, want) {
			t.Errorf("wrote %q, want %q", files, want)
		}
	}
	assertFile(t, manifest, `{
  "name": "ctxkeep",
  "version": "1.2.3",
  "description": "Keeps Claude Code's context lean and makes compaction lossless"
}
`, 0o600)
	assertFile(t, hooks, `{
  "description": "ctxkeep's hook handlers",
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "${CLAUDE_PLUGIN_ROOT}/bin/ctxkeep hook",
            "timeout": 30
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "${CLAUDE_PLUGIN_ROOT}/bin/ctxkeep hook",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`, 0o600)
}

func TestWritePluginRefusesOtherFiles(t *testing.T) {
	tests := []struct {
		name, file, content, want string
	}{
		{"another plugin", ".claude-plugin/plugin.json", `{"name": "myctx"}`, "is not ctxkeep's plugin manifest"},
		{"unreadable manifest", ".claude-plugin/plugin.json", `{`, "is not ctxkeep's plugin manifest"},
		{"hooks without manifest", "hooks/hooks.json", `{"hooks": {}}`, "is not ctxkeep's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, filepath.FromSlash(tt.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, tt.content, 0o644)
			before := listDir(t, dir)

			_, err := WritePlugin(dir, testReg, "1.0.0")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
			if after := listDir(t, dir); len(after) != len(before) {
				t.Errorf("folder changed: %v", after)
			}
		})
	}
}

func TestWritePluginRejectsBadRegistration(t *testing.T) {
	if _, err := WritePlugin(t.TempDir(), Registration{Command: "other hook"}, "1"); err == nil {
		t.Error("WritePlugin accepted a command that is not ctxkeep's")
	}
}

// The plugin's files are written as settings are: a read-only one or a
// link to nothing is refused rather than replaced.
func TestWritePluginRefusesReadOnlyAndDanglingFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugin")
	if _, err := WritePlugin(dir, testReg, "1.0.0"); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(dir, "hooks", "hooks.json")
	if err := os.Chmod(hooks, 0o444); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(hooks)
	reg := testReg
	reg.Hooks = reg.Hooks[:1]
	if _, err := WritePlugin(dir, reg, "1.0.1"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only hooks.json: error %v, want ErrReadOnly", err)
	}
	if after, _ := os.ReadFile(hooks); string(after) != string(before) {
		t.Error("the read-only hooks.json was replaced")
	}

	os.Remove(hooks)
	if err := os.Symlink(filepath.Join(dir, "gone", "hooks.json"), hooks); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if _, err := WritePlugin(dir, reg, "1.0.1"); !errors.Is(err, ErrDanglingLink) {
		t.Errorf("dangling hooks.json: error %v, want ErrDanglingLink", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone")); err == nil {
		t.Error("a folder was created at the end of the link")
	}
}
