package geminitest

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

// Version is the Gemini CLI release the tests are written against.
const Version = "0.61.0"

// BinaryEnv names the environment variable that points the tests at a
// client executable instead of the one scripts/install-gemini.sh installs.
const BinaryEnv = "CTXKEEP_GEMINI_BIN"

const installScript = "scripts/install-gemini.sh"

// Binary returns the path of the pinned Gemini CLI: $CTXKEEP_GEMINI_BIN if
// set, else the one installed under <repo>/.cache/gemini. Without one it
// skips the test, or fails it when CI=true. Another version fails the
// test.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(BinaryEnv)
	if bin == "" {
		bin = filepath.Join(clienttest.RepoRoot(t), ".cache", "gemini", "node_modules", ".bin", "gemini")
		if _, err := os.Stat(bin); err != nil {
			clienttest.Unavailable(t, "Gemini CLI %s is not installed: run %s, or set %s", Version, installScript, BinaryEnv)
		}
	}
	version, err := versionOf(bin)
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	if version != Version {
		t.Fatalf("%s reports version %q; the tests need Gemini CLI %s (%s installs it)", bin, version, Version, installScript)
	}
	return bin
}

// versionOf runs bin --version in a throwaway HOME; it prints "0.61.0".
func versionOf(bin string) (string, error) {
	home, err := os.MkdirTemp("", "geminitest-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_CLI_NO_RELAUNCH=true"}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("--version: %w", err)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("--version printed %q", out)
	}
	return fields[len(fields)-1], nil
}
