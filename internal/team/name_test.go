package team

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNormalizeRemote(t *testing.T) {
	for raw, want := range map[string]string{
		"git@github.com:acme/api.git":                           "github.com/acme/api",
		"https://github.com/acme/api":                           "github.com/acme/api",
		"https://github.com/acme/api.git/":                      "github.com/acme/api",
		"https://x-access-token:ghp_secret@GitHub.com/acme/api": "github.com/acme/api",
		"ssh://git@gitlab.example.com:2222/group/sub/api.git":   "gitlab.example.com/group/sub/api",
		"/srv/git/api.git":                                      "api",
		"file:///srv/git/api.git":                               "api",
		"../api":                                                "api",
	} {
		if got := normalizeRemote(raw); got != want {
			t.Errorf("normalizeRemote(%q) = %q, want %q", raw, got, want)
		}
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The same repository cloned twice, or checked out as a linked worktree,
// gets the same name: its origin remote; without a remote, its folder's.
func TestDefaultName(t *testing.T) {
	dir := t.TempDir()
	clone := filepath.Join(dir, "work", "api")
	write(t, filepath.Join(clone, ".git", "config"), "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@github.com:other/api.git\n"+
		"[remote \"origin\"]\n\turl = https://github.com/acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n")
	if got := DefaultName(clone); got != "github.com/acme/api" {
		t.Errorf("clone: %q", got)
	}
	// A linked worktree: .git is a file naming its gitdir, whose commondir
	// is the main repository's .git.
	wt := filepath.Join(dir, "wt")
	write(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(clone, ".git", "worktrees", "wt")+"\n")
	write(t, filepath.Join(clone, ".git", "worktrees", "wt", "commondir"), "../..\n")
	if got := DefaultName(wt); got != "github.com/acme/api" {
		t.Errorf("worktree: %q", got)
	}
	only := filepath.Join(dir, "fork")
	write(t, filepath.Join(only, ".git", "config"), "[remote \"upstream\"]\n\turl = git@github.com:other/fork.git\n")
	if got := DefaultName(only); got != "github.com/other/fork" {
		t.Errorf("no origin: %q", got)
	}
	plain := filepath.Join(dir, "notes")
	os.MkdirAll(plain, 0o700)
	if got := DefaultName(plain); got != "notes" {
		t.Errorf("no repository: %q", got)
	}
}

func TestProjectsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "team-projects.json")
	if _, err := AddProject(path, Project{Root: "/src/api", Name: "acme/api"}); err != nil {
		t.Fatal(err)
	}
	if _, err := AddProject(path, Project{Root: "/src/web", Name: "acme/web"}); err != nil {
		t.Fatal(err)
	}
	ps, err := AddProject(path, Project{Root: "/src/api", Name: "acme/api2"})
	if err != nil || len(ps) != 2 || ps[0].Name != "acme/api2" {
		t.Fatalf("re-adding a root renames it: %+v, %v", ps, err)
	}
	if p, ok := Of(ps, "/src/api/internal"); !ok || p.Name != "acme/api2" {
		t.Errorf("Of(a folder under a project) = %+v, %t", p, ok)
	}
	if _, ok := Of(ps, "/src/apix"); ok {
		t.Error("a sibling folder counts as the project")
	}
	for _, bad := range []Project{{Root: "rel", Name: "x"}, {Root: "/a", Name: ""}, {Root: "/a", Name: "x\ny"}} {
		if _, err := AddProject(path, bad); err == nil {
			t.Errorf("AddProject(%+v) accepted", bad)
		}
	}
	if found, err := RemoveProject(path, "/src/web"); !found || err != nil {
		t.Fatalf("RemoveProject = %t, %v", found, err)
	}
	if ps, _ := Projects(path); len(ps) != 1 {
		t.Fatalf("after removal: %+v", ps)
	}
}
