package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

const pluginName = "ctxkeep"

type pluginManifest struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description"`
}

type pluginHooks struct {
	Description string          `json:"description"`
	Hooks       json.RawMessage `json:"hooks"`
}

// WritePlugin lays out in dir a Claude Code plugin that registers reg, for
// loading ctxkeep with --plugin-dir rather than through settings: the
// manifest .claude-plugin/plugin.json, hooks/hooks.json and, when reg
// names an MCP server, .mcp.json. It returns the files it wrote. It refuses a folder holding files of another plugin, but
// rewrites its own, so it can be run again after an upgrade.
func WritePlugin(dir string, reg Registration, version string) ([]string, error) {
	p, err := newPlan(reg)
	if err != nil {
		return nil, err
	}
	manifestPath := filepath.Join(dir, ".claude-plugin", "plugin.json")
	hooksPath := filepath.Join(dir, "hooks", "hooks.json")
	if err := checkPluginIsOurs(manifestPath, hooksPath); err != nil {
		return nil, err
	}

	hooks, _ := p.editHooks(nil)
	// The manifest goes first: it is what marks the folder as ctxkeep's.
	files := []struct {
		path string
		doc  any
	}{
		{manifestPath, pluginManifest{
			Name:        pluginName,
			Version:     version,
			Description: "Keeps Claude Code's context lean and makes compaction lossless",
		}},
		{hooksPath, pluginHooks{Description: "ctxkeep's hook handlers", Hooks: hooks.Marshal()}},
	}
	var written []string
	for _, f := range files {
		if err := writeJSONFile(f.path, f.doc); err != nil {
			return written, err
		}
		written = append(written, f.path)
	}
	if reg.MCP != nil {
		path, err := writePluginMCP(dir, *reg.MCP)
		if err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// writeJSONFile writes one of the plugin's files the way settings are
// edited (ApplyFile: locked, checked before the rename, no dangling link
// or read-only file replaced), without a backup: the file is ctxkeep's.
func writeJSONFile(path string, doc any) error {
	data, err := format(rawjson.Encode(doc), false)
	if err != nil {
		return err
	}
	if err := fsx.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	_, err = ApplyFile(path, func(old []byte) ([]byte, bool, error) {
		return data, !bytes.Equal(old, data), nil
	}, ApplyOptions{NoBackup: true})
	return err
}

// checkPluginIsOurs refuses a folder where ctxkeep would overwrite files it
// did not write: a manifest that names another plugin, or hook definitions
// without ctxkeep's manifest.
func checkPluginIsOurs(manifestPath, hooksPath string) error {
	data, err := os.ReadFile(manifestPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if exists(hooksPath) {
			return fmt.Errorf("%s exists but is not ctxkeep's: not overwriting it", hooksPath)
		}
		return nil
	case err != nil:
		return err
	}
	var m pluginManifest
	if json.Unmarshal(data, &m) != nil || m.Name != pluginName {
		return fmt.Errorf("%s is not ctxkeep's plugin manifest: not overwriting it", manifestPath)
	}
	return nil
}
