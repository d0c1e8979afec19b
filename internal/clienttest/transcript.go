package clienttest

import (
	"os"
	"path/filepath"
	"strings"
)

// ProjectKey is the folder name the client gives a project under
// ~/.claude/projects: its path with every character other than an ASCII
// letter or digit replaced by "-".
func ProjectKey(dir string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, dir)
}

// TranscriptPath returns where the client keeps the transcript of a session
// started in the harness's project folder.
func (h *Harness) TranscriptPath(sessionID string) string {
	return filepath.Join(h.Home, ".claude", "projects", ProjectKey(h.Project), sessionID+".jsonl")
}

// Transcript reads and decodes a session's transcript.
func (h *Harness) Transcript(sessionID string) Lines {
	h.t.Helper()
	data, err := os.ReadFile(h.TranscriptPath(sessionID))
	if err != nil {
		h.t.Fatalf("transcript: %v", err)
	}
	return parseLines(data)
}
