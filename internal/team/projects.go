// Package team shares what one person's agent learned with the team: it
// pushes the local archive of the projects the user opted in to the team
// archive on PostgreSQL (internal/postgres), redacted, from a cursor kept
// on this machine, so that a sync pushes only what is new, resumes where
// an interrupted one stopped, and pushes nothing twice.
//
// Nothing here runs on the hook path: the SessionEnd hook may only start
// `ctxkeep team sync --background`, which takes a lock and a time bound.
package team

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// Project is a local project that joined the team archive under a name
// every member's clone shares (by default its git remote), so that the
// same repository on two machines is one team project.
type Project struct {
	Root  string    `json:"root"` // the project's folder on this machine
	Name  string    `json:"name"` // its name in the team archive
	Added time.Time `json:"added"`
}

// projectsFile is the list of projects opted in, on this machine.
type projectsFile struct {
	Projects []Project `json:"projects"`
}

// Projects reads the projects opted in; none when the file is missing.
func Projects(path string) ([]Project, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f projectsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f.Projects, nil
}

// AddProject opts p in (replacing the name of a root already there) and
// returns the list as it is now.
func AddProject(path string, p Project) ([]Project, error) {
	if p.Root == "" || !filepath.IsAbs(p.Root) {
		return nil, fmt.Errorf("a project's folder must be an absolute path, got %q", p.Root)
	}
	if err := ValidName(p.Name); err != nil {
		return nil, err
	}
	return editProjects(path, func(ps []Project) []Project {
		ps = slices.DeleteFunc(ps, func(q Project) bool { return q.Root == p.Root })
		return append(ps, p)
	})
}

// RemoveProject opts the project at root out; what was pushed stays in the
// team archive. It reports whether it was in.
func RemoveProject(path, root string) (bool, error) {
	found := false
	_, err := editProjects(path, func(ps []Project) []Project {
		return slices.DeleteFunc(ps, func(q Project) bool {
			found = found || q.Root == root
			return q.Root == root
		})
	})
	return found, err
}

// editProjects changes the list under a lock: two commands at once do not
// lose each other's change.
func editProjects(path string, edit func([]Project) []Project) ([]Project, error) {
	var out []Project
	if err := fsx.MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	err := fsx.Locked(path+".lock", func() error {
		ps, err := Projects(path)
		if err != nil {
			return err
		}
		out = edit(ps)
		slices.SortFunc(out, func(a, b Project) int { return strings.Compare(a.Root, b.Root) })
		data, _ := json.MarshalIndent(projectsFile{Projects: out}, "", "  ")
		return fsx.WriteFileAtomic(path, append(data, '\n'), fsx.FilePerm)
	})
	return out, err
}

// ValidName checks a team project's name: printable, one line, not empty,
// at most 200 bytes.
func ValidName(name string) error {
	if name == "" || len(name) > 200 || strings.TrimSpace(name) != name {
		return fmt.Errorf("bad team project name %q: want 1 to 200 characters, no leading or trailing space", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("bad team project name %q: control characters", name)
		}
	}
	return nil
}

// Of returns the project opted in that holds dir (its root, or a folder
// under it), if any.
func Of(ps []Project, dir string) (Project, bool) {
	for _, p := range ps {
		if dir == p.Root || strings.HasPrefix(dir, p.Root+string(filepath.Separator)) {
			return p, true
		}
	}
	return Project{}, false
}
