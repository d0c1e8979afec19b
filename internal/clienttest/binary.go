package clienttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Version is the Claude Code release the tests are written against.
const Version = "2.1.330"

// BinaryEnv names the environment variable that points the tests at a
// client binary instead of the one scripts/install-claude-code.sh installs.
const BinaryEnv = "CTXKEEP_CLAUDE_BIN"

// installScript installs the pinned client into <repo>/.cache/claude-code.
const installScript = "scripts/install-claude-code.sh"

// Binary returns the path of the pinned Claude Code binary: $CTXKEEP_CLAUDE_BIN
// if set, else the one installed under <repo>/.cache/claude-code. Without a
// binary it skips the test, or fails it when CI=true. A binary of another
// version fails the test.
func Binary(t testing.TB) string {
	t.Helper()
	bin, version := os.Getenv(BinaryEnv), ""
	if bin != "" {
		var err error
		if version, err = versionOf(bin); err != nil {
			t.Fatalf("%s=%s: %v", BinaryEnv, bin, err)
		}
	} else {
		bin, version = installedBinary(t)
	}
	if version != Version {
		t.Fatalf("%s reports version %q; the tests need Claude Code %s (%s installs it)", bin, version, Version, installScript)
	}
	return bin
}

// installedBinary returns the first candidate under the repository's cache
// that runs and reports a version.
func installedBinary(t testing.TB) (bin, version string) {
	t.Helper()
	root := RepoRoot(t)
	var failures []string
	for _, c := range candidates(root) {
		v, err := versionOf(c)
		if err == nil {
			return c, v
		}
		if !errors.Is(err, os.ErrNotExist) {
			failures = append(failures, fmt.Sprintf("%s: %v", c, err))
		}
	}
	msg := fmt.Sprintf("Claude Code %s is not installed: run %s, or set %s", Version, installScript, BinaryEnv)
	if len(failures) > 0 {
		msg += "\n" + strings.Join(failures, "\n")
	}
	Unavailable(t, "%s", msg)
	return "", ""
}

// candidates lists where npm may have put the native binary, best first. The
// wrapper package's bin/claude.exe is the binary only once its postinstall
// script has run; until then it is a shell stub that fails. The binary also
// sits in a platform-specific optional dependency.
func candidates(root string) []string {
	scope := filepath.Join(root, ".cache", "claude-code", "node_modules", "@anthropic-ai")
	list := []string{filepath.Join(scope, "claude-code", "bin", "claude.exe")}
	for _, pattern := range []string{"claude-code-*/claude", "claude-code-*/claude.exe"} {
		matches, _ := filepath.Glob(filepath.Join(scope, pattern))
		list = append(list, matches...)
	}
	return list
}

// Unavailable skips the test, or fails it in CI where the client must be
// installed.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// versionOf runs bin --version, which prints e.g. "2.1.330 (Claude Code)".
func versionOf(bin string) (string, error) {
	if _, err := os.Stat(bin); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("%s --version printed nothing", bin)
	}
	return fields[0], nil
}

// RepoRoot walks up from the working directory to the folder holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the working directory")
		}
		dir = parent
	}
}
