package redact

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodeTree measures redaction over a tree of source code, as an agent
// reads it: CTXKEEP_REDACT_TREE names the folder (the Go distribution's
// src, a module cache). Not run otherwise. Each redaction is listed.
func TestCodeTree(t *testing.T) {
	root := os.Getenv("CTXKEEP_REDACT_TREE")
	if root == "" {
		t.Skip("CTXKEEP_REDACT_TREE is not set")
	}
	var files, bytes, total int
	kinds := map[string]int{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "/testdata/") {
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".txt", ".json", ".yaml", ".yml", ".toml", ".sh", ".py", ".js", ".ts", ".html", ".c", ".h", ".s":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 4<<20 {
			return nil
		}
		files++
		bytes += len(data)
		s := string(data)
		for _, m := range find(s) {
			total++
			kinds[m.kind]++
			fmt.Printf("%s\t%s\t%q\n", m.kind, path, s[max(0, m.start-50):min(len(s), m.end+10)])
		}
		return nil
	})
	t.Logf("%d files, %.1f MB: %d redactions %v", files, float64(bytes)/1e6, total, kinds)
}
