package codextest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
)

// Version is the Codex CLI release the tests are written against.
const Version = "0.169.0"

// BinaryEnv names the environment variable that points the tests at a
// client binary instead of the one scripts/install-codex.sh installs.
const BinaryEnv = "CTXKEEP_CODEX_BIN"

const installScript = "scripts/install-codex.sh"

// Binary returns the path of the pinned Codex binary: $CTXKEEP_CODEX_BIN if
// set, else the one installed under <repo>/.cache/codex. Without a binary
// it skips the test, or fails it when CI=true. A binary of another version
// fails the test.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(BinaryEnv)
	if bin == "" {
		bin = installed(t)
	}
	version, err := versionOf(bin)
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	if version != Version {
		t.Fatalf("%s reports version %q; the tests need Codex %s (%s installs it)", bin, version, Version, installScript)
	}
	return bin
}

// installed returns the native binary npm put under the repository's
// cache (codex-hooks.md §1), or skips (fails in CI).
func installed(t testing.TB) string {
	t.Helper()
	pattern := filepath.Join(clienttest.RepoRoot(t), ".cache", "codex", "node_modules", "@openai", "codex-*", "vendor", "*", "bin", "codex")
	matches, _ := filepath.Glob(pattern)
	if len(matches) == 0 {
		clienttest.Unavailable(t, "Codex %s is not installed: run %s, or set %s", Version, installScript, BinaryEnv)
	}
	return matches[0]
}

// versionOf runs bin --version, which prints "codex-cli 0.169.0".
func versionOf(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("--version: %w", err)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 {
		return "", fmt.Errorf("--version printed %q", out)
	}
	return fields[1], nil
}
