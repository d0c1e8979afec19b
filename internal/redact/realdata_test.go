package redact

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// TestRealTranscripts measures redaction on every real transcript and
// trajectory in shared/data (Claude Code, Codex, SWE-agent; 26 MB of
// code, logs, diffs, hashes, uuids and base64 images): each line as JSON
// (its strings decoded, as the index and the views see them). Their
// authors scrubbed them of secrets, so whatever is redacted there is a
// false positive, but for three signed JWTs; each is listed with -v.
// docs/SECURITY.md gives the figures.
func TestRealTranscripts(t *testing.T) {
	root := realdata.Path("")
	if _, err := os.Stat(root); err != nil {
		realdata.Missing(t, "%v", err)
	}
	var files []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".traj") || strings.HasSuffix(path, ".json")) {
			files = append(files, path)
		}
		return nil
	})
	var lines, bytes int
	found := map[string][]string{}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			lines++
			bytes += len(line)
			for _, m := range find(unescape(line)) {
				s := unescape(line)
				found[m.kind] = append(found[m.kind], fmt.Sprintf("%s: %q", filepath.Base(path), s[max(0, m.start-60):min(len(s), m.end+20)]))
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	total := 0
	kinds := make([]string, 0, len(found))
	for k, v := range found {
		kinds = append(kinds, k)
		total += len(v)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		for _, s := range found[k] {
			t.Logf("%s\t%s", k, s)
		}
	}
	t.Logf("%d files, %d lines, %.1f MB: %d redactions", len(files), lines, float64(bytes)/1e6, total)
	// The only secrets left in them: three signed JWTs that give access to
	// images (?token=eyJ… in LoCoMo's image links). Anything else is a
	// false positive.
	if len(found[JWT]) != 3 || total != 3 {
		t.Errorf("%d redactions, %d of them JWTs: want the 3 JWTs of locomo10.json and no false positive", total, len(found[JWT]))
	}
}

// unescape is a JSON line with its escapes undone the cheap way (\n, \t,
// \", \\), as its strings read once decoded.
func unescape(line string) string {
	if !strings.Contains(line, `\`) {
		return line
	}
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\"`, `"`, `\r`, "\r").Replace(line)
}
