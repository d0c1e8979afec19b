package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	sub := filepath.Join(repo, "internal", "api")
	os.MkdirAll(sub, 0o700)
	os.Mkdir(filepath.Join(repo, ".git"), 0o700)
	worktree := filepath.Join(dir, "wt")
	os.MkdirAll(filepath.Join(worktree, "pkg"), 0o700)
	os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: ../repo/.git/worktrees/wt\n"), 0o600)
	plain := filepath.Join(dir, "plain", "folder")
	os.MkdirAll(plain, 0o700)

	for _, c := range []struct{ client, cwd, want string }{
		{repo, sub, repo},                  // the client's root wins
		{"/elsewhere/", sub, "/elsewhere"}, // even when cwd is in another repository
		{"", sub, repo},                    // else the git root above cwd
		{"", repo, repo},
		{"", filepath.Join(worktree, "pkg"), worktree}, // .git as a file
		{"", plain, plain},                             // else cwd
		{"", plain + "/./", plain},                     // cleaned
		{"", "", ""},
	} {
		if got := Root(c.client, c.cwd); got != c.want {
			t.Errorf("Root(%q, %q) = %q, want %q", c.client, c.cwd, got, c.want)
		}
	}
}
