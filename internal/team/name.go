package team

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// maxGitFile bounds the git files read to name a project.
const maxGitFile = 1 << 20

// DefaultName is the team name of the project at root: its git remote
// (origin, else the first remote), without scheme, user, password, port or
// ".git" — git@github.com:acme/api.git and https://github.com/acme/api are
// both github.com/acme/api — else the folder's name. It reads .git/config
// (through a worktree's or submodule's gitdir file) as input, and runs no
// git.
func DefaultName(root string) string {
	if u := remoteURL(root); u != "" {
		if name := normalizeRemote(u); name != "" {
			return name
		}
	}
	return filepath.Base(root)
}

// remoteURL is the URL of the repository's origin remote, else of its
// first remote with one, else "".
func remoteURL(root string) string {
	data, err := fsx.ReadRegular(gitConfigPath(root), maxGitFile)
	if err != nil {
		return ""
	}
	remotes := map[string]string{}
	var order []string
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = ""
			if name, ok := strings.CutPrefix(strings.Trim(line, "[]"), "remote "); ok {
				section = strings.Trim(strings.TrimSpace(name), `"`)
			}
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if section == "" || !ok || !strings.EqualFold(strings.TrimSpace(key), "url") {
			continue
		}
		if _, seen := remotes[section]; !seen {
			order = append(order, section)
			remotes[section] = strings.Trim(strings.TrimSpace(val), `"`)
		}
	}
	if u := remotes["origin"]; u != "" {
		return u
	}
	for _, name := range order {
		if remotes[name] != "" {
			return remotes[name]
		}
	}
	return ""
}

// gitConfigPath finds the config of the repository at root: .git/config,
// or, when .git is a file (a linked worktree, a submodule), the config of
// the common git folder it points to.
func gitConfigPath(root string) string {
	dotgit := filepath.Join(root, ".git")
	info, err := os.Lstat(dotgit)
	if err != nil || info.IsDir() {
		return filepath.Join(dotgit, "config")
	}
	data, err := fsx.ReadRegular(dotgit, maxGitFile)
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(root, gitdir)
	}
	if common, err := fsx.ReadRegular(filepath.Join(gitdir, "commondir"), maxGitFile); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitdir, c)
		}
		return filepath.Join(c, "config")
	}
	return filepath.Join(gitdir, "config")
}

// normalizeRemote turns a remote URL into host/path: scp-like
// (git@host:path), URLs of any scheme, or a local path (its last folder).
// Users, passwords and ports are dropped: a token in an https remote never
// becomes part of a name.
func normalizeRemote(raw string) string {
	host, path := "", ""
	switch {
	case strings.Contains(raw, "://"):
		u, err := url.Parse(raw)
		if err != nil {
			return ""
		}
		host, path = u.Hostname(), u.Path
	case !strings.HasPrefix(raw, "/") && strings.Contains(raw, ":") && !strings.Contains(strings.SplitN(raw, ":", 2)[0], "/"):
		h, p, _ := strings.Cut(raw, ":")
		if at := strings.LastIndex(h, "@"); at >= 0 {
			h = h[at+1:]
		}
		host, path = h, p
	default:
		path = raw
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	path = strings.TrimSuffix(path, "/")
	if host == "" || host == "localhost" {
		if path == "" {
			return ""
		}
		return filepath.Base(path)
	}
	if path == "" {
		return ""
	}
	return strings.ToLower(host) + "/" + path
}

// IdentityKey is a short name for an identity, usable as a file name.
func IdentityKey(identity string) string {
	s := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(s[:8])
}
