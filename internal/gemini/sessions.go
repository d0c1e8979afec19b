package gemini

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Chats lists the chat of each session under home, oldest first (their
// names start with the time they were created); not the stray files a
// resume leaves (SessionChat).
func Chats(home string) ([]string, error) {
	paths, err := filepath.Glob(ChatsGlob(home))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	seen := map[string]bool{} // folder and short id of the chats kept
	kept := paths[:0]
	for _, p := range paths {
		key := filepath.Join(filepath.Dir(p), shortID(p))
		if seen[key] && SessionChat(p, sessionOf(p)) != p {
			continue
		}
		seen[key] = true
		kept = append(kept, p)
	}
	return kept, nil
}

// sessionOf is the session id a chat's header names; "" when unreadable.
func sessionOf(path string) string {
	meta, err := ReadMeta(path)
	if err != nil {
		return ""
	}
	return meta.ID
}

// SessionChat is the chat file the CLI writes session to, given a chat of
// it at path (a hook's transcript_path, checked by ValidChat). Gemini CLI
// 0.61.0, resuming a session in another minute than the one its chat is
// named for, creates a chat named for the new minute (a header and the
// session context, nothing more) and goes on writing the conversation in
// the first; SessionStart names the new one, the later events the first.
// So a session's chat is the oldest in its folder named for its id whose
// header names it: path itself when there is no other.
func SessionChat(path, session string) string {
	if len(session) < 8 {
		return path
	}
	same, err := filepath.Glob(filepath.Join(globEscape(filepath.Dir(path)), "session-*-"+globEscape(session[:8])+".jsonl"))
	if err != nil || len(same) < 2 {
		return path
	}
	slices.SortFunc(same, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	for _, p := range same {
		if p == path || sessionOf(p) == session {
			return p
		}
	}
	return path
}

// Find returns the chat of the session whose id is id or starts with it
// (a chat's name holds the first 8 characters of its id, its header the
// whole); ErrNotFound or ErrAmbiguous otherwise.
func Find(home, id string) (string, error) {
	paths, err := Chats(home)
	if err != nil {
		return "", err
	}
	var found []string
	for _, p := range paths {
		short := shortID(p)
		if short == "" || !(strings.HasPrefix(id, short) || strings.HasPrefix(short, id)) {
			continue
		}
		meta, err := ReadMeta(p)
		if err != nil || !strings.HasPrefix(meta.ID, id) {
			continue
		}
		if meta.ID == id {
			return p, nil
		}
		found = append(found, p)
	}
	switch len(found) {
	case 0:
		return "", ctxkeep.Errorf(ctxkeep.ErrNotFound, "no Gemini CLI session %q under %s", id, filepath.Join(home, "tmp"))
	case 1:
		return found[0], nil
	}
	return "", ctxkeep.Errorf(ctxkeep.ErrAmbiguous, "%q matches %d Gemini CLI sessions", id, len(found))
}

// shortID is the id part of a chat's name: session-<time>-<id8>.jsonl.
func shortID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	i := strings.LastIndexByte(name, '-')
	if !strings.HasPrefix(name, "session-") || i < 0 {
		return ""
	}
	return name[i+1:]
}

// Meta is what the first lines of a chat say of its session.
type Meta struct {
	ID          string
	ProjectHash string
	Start       time.Time
	// Workspace is the first folder of the session's workspace, as the
	// CLI's session context names it; "" when the chat does not say.
	Workspace string
}

// metaLines bounds how many lines ReadMeta reads for the workspace.
const metaLines = 8

// ReadMeta reads a chat's header, and its workspace from the session
// context the CLI records before the first prompt.
func ReadMeta(path string) (Meta, error) {
	f, _, err := fsx.OpenRegular(path)
	if err != nil {
		return Meta{}, err
	}
	defer f.Close()
	sc := transcript.NewLimitedScanner(f, transcript.Cursor{}, transcript.ReadLimits{Bytes: 4 << 20, Line: 4 << 20}, false)
	var m Meta
	for n := 0; n < metaLines && sc.Scan(); n++ {
		rec, ok := decodeRecord(sc.Record().Raw)
		if !ok {
			break
		}
		if n == 0 {
			if !rec.isHeader() {
				break
			}
			m.ID, m.ProjectHash = rec.SessionID, rec.ProjectHash
			m.Start, _ = time.Parse(time.RFC3339Nano, rec.StartTime)
			continue
		}
		msgs := []record{rec}
		if rec.Set != nil {
			msgs = rec.Set.Messages
		}
		for _, r := range msgs {
			if w := workspace(r.text()); w != "" {
				m.Workspace = w
				return m, nil
			}
		}
	}
	if m.ID == "" {
		return Meta{}, fmt.Errorf("%s: %w", path, ErrNotChat)
	}
	return m, nil
}

// workspace reads the first workspace folder of a session context:
// "- **Workspace Directories:**\n  - /path".
func workspace(text string) string {
	const head = "**Workspace Directories:**"
	i := strings.Index(text, head)
	if !strings.HasPrefix(text, sessionContext) || i < 0 {
		return ""
	}
	rest := text[i+len(head):]
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		if p, ok := strings.CutPrefix(line, "- "); ok && filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		if line != "" && !strings.HasPrefix(line, "- ") {
			break
		}
	}
	return ""
}

// IsChat reports whether a file is a Gemini CLI chat: its first line is a
// session header.
func IsChat(path string) bool {
	_, err := ReadMeta(path)
	return err == nil
}

// ValidChat checks a transcript path from hook input before it is read:
// an absolute, clean path to session-….jsonl in a chats folder.
func ValidChat(path string) error {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || filepath.Ext(path) != ".jsonl" ||
		filepath.Base(filepath.Dir(path)) != "chats" || !strings.HasPrefix(filepath.Base(path), "session-") {
		return errors.New("not a Gemini CLI chat path")
	}
	return nil
}

// Report is the context usage of a session along its chat.
type Report struct {
	Meta
	transcript.UsageReport
}

// ReadReport reads a whole chat for its usage. A model message written
// again (with its calls) counts once.
func ReadReport(path string) (*Report, error) {
	meta, err := ReadMeta(path)
	if err != nil {
		return nil, err
	}
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		return nil, err
	}
	r := &Report{Meta: meta}
	seen := map[string]bool{}
	var cycle int64
	for _, raw := range f.Records {
		rec, ok := decodeRecord(raw.Raw)
		if !ok {
			continue
		}
		if takeUsage(&r.Usage, &rec) {
			r.Compactions = append(r.Compactions, transcript.CompactedAt{Time: raw.Timestamp, Before: cycle})
			cycle = 0
			continue
		}
		if rec.Type == "gemini" && rec.Tokens != nil && rec.Tokens.Input > 0 && !seen[rec.ID] {
			seen[rec.ID] = true
			r.Responses++
			r.Timeline = append(r.Timeline, transcript.UsagePoint{Time: rec.time(), Tokens: r.Usage.Tokens})
			r.Peak, cycle = max(r.Peak, r.Usage.Tokens), max(cycle, r.Usage.Tokens)
		}
	}
	r.Model = r.Usage.Model
	return r, nil
}
