package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

// ErrStatusLineTaken is returned by SetStatusLine when the settings
// already have a statusLine that is not ctxkeep's: a user's statusline is
// theirs, and is only replaced when they say so.
var ErrStatusLineTaken = errors.New("settings already have a statusLine")

// IsCtxkeepStatusLine reports whether a statusLine command runs
// `ctxkeep statusline` or `ctxkeep-hook statusline`, by any path.
func IsCtxkeepStatusLine(cmd string) bool {
	words := shellWords(cmd, 2)
	if len(words) != 2 || words[1] != "statusline" {
		return false
	}
	name := programName(words[0])
	return name == "ctxkeep" || name == "ctxkeep-hook"
}

func statusCommand(raw json.RawMessage) string {
	var sl struct {
		Command string `json:"command"`
	}
	if raw == nil || json.Unmarshal(raw, &sl) != nil {
		return ""
	}
	return sl.Command
}

// SetStatusLine makes command the client's statusLine. An existing
// statusLine that is not ctxkeep's is an error wrapping ErrStatusLineTaken
// unless force is set. Every other key is kept as it is.
func SetStatusLine(settings []byte, command string, force bool) ([]byte, bool, error) {
	if !IsCtxkeepStatusLine(command) {
		return nil, false, fmt.Errorf("statusLine command %q does not run \"ctxkeep statusline\" or \"ctxkeep-hook statusline\"", command)
	}
	doc, err := parseSettings(settings)
	if err != nil {
		return nil, false, err
	}
	want := rawjson.Encode(struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}{"command", command})

	old := doc.top.Get("statusLine")
	if old != nil && sameJSON(old, want) {
		return settings, false, nil
	}
	if cmd := statusCommand(old); old != nil && !IsCtxkeepStatusLine(cmd) && !force {
		what := "one that is not a command"
		if cmd != "" {
			what = fmt.Sprintf("%q", cmd)
		}
		return nil, false, fmt.Errorf("%w: %s", ErrStatusLineTaken, what)
	}
	return setMember(settings, doc.top, "statusLine", want)
}

// RemoveStatusLine takes ctxkeep's statusLine out of a settings file's
// content; anyone else's stays.
func RemoveStatusLine(settings []byte) ([]byte, bool, error) {
	return RestoreStatusLine(settings, nil)
}

// RestoreStatusLine puts back, in place of ctxkeep's statusLine, the one
// it replaced (install --statusline --force), as it was written; a nil
// previous removes ctxkeep's. A statusLine that is not ctxkeep's (set
// since) stays.
func RestoreStatusLine(settings []byte, previous json.RawMessage) ([]byte, bool, error) {
	doc, err := parseSettings(settings)
	if err != nil {
		return nil, false, err
	}
	if !IsCtxkeepStatusLine(statusCommand(doc.top.Get("statusLine"))) {
		return settings, false, nil
	}
	return setMember(settings, doc.top, "statusLine", previous)
}

// StatusLine returns the settings' statusLine as written (nil when there
// is none) when it is not ctxkeep's: what install --statusline --force
// replaces, for uninstall to put back.
func StatusLine(settings []byte) (json.RawMessage, error) {
	doc, err := parseSettings(settings)
	if err != nil {
		return nil, err
	}
	old := doc.top.Get("statusLine")
	if old == nil || IsCtxkeepStatusLine(statusCommand(old)) {
		return nil, nil
	}
	return old, nil
}

// setMember sets (or, with a nil value, removes) one top-level member and
// writes the file back the way editSettings does: the other members as
// they were written when the file is indented like Claude Code's.
func setMember(data []byte, top rawjson.Object, name string, value json.RawMessage) ([]byte, bool, error) {
	i := top.Find(name)
	switch {
	case value == nil && i < 0:
		return data, false, nil
	case value == nil:
		top = slices.Delete(slices.Clone(top), i, i+1)
	case i < 0:
		top = append(slices.Clone(top), rawjson.NewMember(name, value))
	default:
		top = slices.Clone(top)
		top[i].Value = value
	}
	if !twoSpaceIndented(data) {
		out, err := format(top.Marshal(), usesCRLF(data))
		return out, err == nil, err
	}
	out, err := formatKeeping(top, name, usesCRLF(data))
	return out, err == nil, err
}
