// Package realdata is test support: it finds the real public transcripts
// and datasets that tests and benchmarks replay, in shared/data beside the
// repository (its PROVENANCE.md says where each comes from). When they are
// not there, the calling test is skipped on a laptop, and fails in CI
// (CI=true): the figures in docs/ come from these tests, and a CI run that
// silently skipped them would prove nothing.
package realdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Missing skips t because its data is missing, or fails it under CI=true.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("test data missing (CI=true): "+format, args...)
	}
	t.Skipf(format, args...)
}

// File returns the path of rel under shared/data when it exists, else it
// calls Missing.
func File(t testing.TB, rel string) string {
	t.Helper()
	p := Path(rel)
	if _, err := os.Stat(p); err != nil {
		Missing(t, "%v", err)
	}
	return p
}

// Path is the absolute path of rel under shared/data: where
// CTXKEEP_SHARED_DATA says, else the shared folder beside the repository,
// or beside a folder holding it (a git worktree at <work>/wt/NAME shares
// <work>/shared with the main checkout).
func Path(rel string) string {
	if dir := os.Getenv("CTXKEEP_SHARED_DATA"); dir != "" {
		return filepath.Join(dir, rel)
	}
	_, file, _, _ := runtime.Caller(0) // <repo>/internal/realdata/realdata.go
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	first := filepath.Join(repo, "..", "shared", "data")
	for dir := repo; ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join(first, rel)
		}
		if st, err := os.Stat(filepath.Join(parent, "shared", "data")); err == nil && st.IsDir() {
			return filepath.Join(parent, "shared", "data", rel)
		}
		dir = parent
	}
}

// Spotter returns the five long spotter sessions (client 2.1.38/2.1.39,
// each with one compaction), or skips t.
func Spotter(t testing.TB) []string {
	t.Helper()
	paths, _ := filepath.Glob(Path("cc-sessions-spotter/*-*-*-*-*.jsonl"))
	if len(paths) != 5 {
		Missing(t, "the five spotter sessions are not in %s (found %d)", Path("cc-sessions-spotter"), len(paths))
	}
	return paths
}

// SpotterAll returns every spotter transcript, the short ones included,
// or skips t.
func SpotterAll(t testing.TB) []string {
	t.Helper()
	paths, _ := filepath.Glob(Path("cc-sessions-spotter/*.jsonl"))
	if len(paths) == 0 {
		Missing(t, "no spotter sessions in %s", Path("cc-sessions-spotter"))
	}
	return paths
}
