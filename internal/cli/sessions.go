package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/recall"
)

// How commands find sessions: among the ids ctxkeep knows (matchSession),
// or as transcripts in the client's folder (findTranscript,
// latestTranscript), with one meaning of "the latest session" for every
// command that defaults to it.

// matchSession finds id, or the only id it is a prefix of, among ids (the
// sessions "among" says: "with stored outputs", "in the archive"…).
func matchSession(ids []string, id, among string) (string, error) {
	s, err := recall.MatchSession(ids, id, among)
	return s, sessionHint(err)
}

// sessionHint says what to do about a session id that matched none, or
// several.
func sessionHint(err error) error {
	switch {
	case errors.Is(err, ctxkeep.ErrNotFound):
		return hint(err, "run `ctxkeep stats` to list the sessions the hooks saw")
	case errors.Is(err, ctxkeep.ErrAmbiguous):
		return hint(err, "give more of the id")
	}
	return err
}

// errNoSession is the kind of the error of a command that found no session
// to default to; it is also a not_found.
var errNoSession = errors.New("no session")

type noSessionError struct{ msg string }

func (e *noSessionError) Error() string { return e.msg }
func (e *noSessionError) Is(target error) bool {
	return target == errNoSession || target == ctxkeep.ErrNotFound
}

func noSession(format string, args ...any) error {
	return &noSessionError{fmt.Sprintf(format, args...)}
}

// claudeDir is the client's folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func (a *app) claudeDir() string {
	return claudecode.ConfigDir(a.Getenv("HOME"), a.Getenv("CLAUDE_CONFIG_DIR"))
}

// projectsDir is the client's folder of session transcripts.
func (a *app) projectsDir() string { return filepath.Join(a.claudeDir(), "projects") }

// findTranscript resolves what a user names a session by: a transcript
// path (any file that exists, or anything with a slash or .jsonl), else a
// session id or a unique prefix of one, in any project.
func (a *app) findTranscript(arg string) (string, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() || strings.ContainsRune(arg, filepath.Separator) || strings.HasSuffix(arg, ".jsonl") {
		if _, err := os.Stat(arg); errors.Is(err, fs.ErrNotExist) {
			return "", hint(ctxkeep.Errorf(ctxkeep.ErrNotFound, "no such transcript: %s does not exist", arg),
				"name a session by its id (or a unique prefix), or give a transcript's path; `ctxkeep stats` lists the sessions ctxkeep saw")
		} else if err != nil {
			return "", ctxkeep.Errorf(ctxkeep.ErrNotFound, "%w", err)
		}
		return filepath.Abs(arg)
	}
	if arg == "" || strings.ContainsAny(arg, `*?[\`) {
		return "", usageErrorf("%q is not a session id or a transcript path", arg)
	}
	matches, err := filepath.Glob(filepath.Join(a.projectsDir(), "*", arg+"*.jsonl"))
	if err != nil {
		return "", err
	}
	var exact, prefix []string
	for _, m := range matches {
		if strings.TrimSuffix(filepath.Base(m), ".jsonl") == arg {
			exact = append(exact, m)
		} else {
			prefix = append(prefix, m)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(prefix) == 1:
		return prefix[0], nil
	case len(exact)+len(prefix) == 0:
		return "", hint(ctxkeep.Errorf(ctxkeep.ErrNotFound, "no transcript of session %q under %s", arg, a.projectsDir()),
			"give the transcript's path, or run `ctxkeep stats` for the sessions ctxkeep saw")
	}
	return "", hint(ctxkeep.Errorf(ctxkeep.ErrAmbiguous, "%q matches %d transcripts", arg, len(exact)+len(prefix)), "give more of the id, or the transcript's path")
}

// chosen is the session a command picked for the user when none was
// named.
type chosen struct {
	Path string
	// Elsewhere is the project of the session chosen when this project has
	// none of its own and the command took another project's: every output
	// of the command says so (Note), on a terminal or not, in text and in
	// --json. "" when the session is this project's.
	Elsewhere string
	// Lacks is what this project has none of, for Note: "session" by
	// default.
	Lacks string
}

// Note is what a command says of a session taken from another project,
// "" for one of this project.
func (c chosen) Note(here string) string {
	if c.Elsewhere == "" {
		return ""
	}
	lacks := c.Lacks
	if lacks == "" {
		lacks = "session"
	}
	return fmt.Sprintf("this project (%s) has no %s of its own: this is another project's session, the latest of any project (%s)", here, lacks, c.Elsewhere)
}

// otherProject is what --json documents say of a session taken from
// another project: {"other_project": "/home/u/api", "note": "…"}.
type otherProject struct {
	Project string `json:"other_project,omitempty"`
	Note    string `json:"note,omitempty"`
}

func (a *app) otherProject(c chosen) otherProject {
	if c.Elsewhere == "" {
		return otherProject{}
	}
	return otherProject{Project: c.Elsewhere, Note: c.Note(a.projectDir())}
}

// sayElsewhere puts the note of a session taken from another project at
// the head of a text report, on stdout: piped or not, the reader is told.
func (a *app) sayElsewhere(c chosen) {
	if c.Elsewhere != "" {
		fmt.Fprintf(a.Stdout, "note: %s\n", c.Note(a.projectDir()))
	}
}

// latestTranscript is the session a command is about when none is named:
// the session the command runs in ($CLAUDE_CODE_SESSION_ID, from the
// agent's Bash), else this project's most recently written session, else,
// when this project has none and anyProject is set, the most recently
// written of any project, marked as another project's (chosen.Elsewhere).
// A person at a terminal is told which session of this project it is.
func (a *app) latestTranscript(anyProject bool) (chosen, error) {
	if id := a.Getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
		if path, err := a.findTranscript(id); err == nil {
			return chosen{Path: path}, nil
		}
	}
	dir := claudecode.TranscriptDir(a.claudeDir(), a.projectDir())
	if path := newestTranscript(filepath.Join(dir, "*.jsonl")); path != "" {
		a.note("the latest session of this project: %s (%s)", sessionOf(path), path)
		return chosen{Path: path}, nil
	}
	if !anyProject {
		return chosen{}, noSession("no Claude Code session of this project (%s): none under %s", a.projectDir(), dir)
	}
	if path := newestTranscript(filepath.Join(a.projectsDir(), "*", "*.jsonl")); path != "" {
		return chosen{Path: path, Elsewhere: orDash(projectOf(path))}, nil
	}
	return chosen{}, noSession("no Claude Code session under %s", a.projectsDir())
}

// newestTranscript is the most recently written main-session transcript
// matching pattern, or "".
func newestTranscript(pattern string) string {
	files, _ := filepath.Glob(pattern)
	var best string
	var bestTime time.Time
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "agent-") { // an old client's subagent transcript
			continue
		}
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() && st.ModTime().After(bestTime) {
			best, bestTime = f, st.ModTime()
		}
	}
	return best
}

// sessionOf is the session id of a transcript: its file name.
func sessionOf(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }
