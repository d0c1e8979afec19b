package watch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// Dir is where the monitor keeps its per-session files, under ctxkeep's
// state folder: small, rebuildable, one or two per session.
func Dir(stateDir string) string { return filepath.Join(stateDir, "watch") }

// WarnPath is the file of the warnings policy (the UserPromptSubmit and
// PostToolUse hooks): they read and write it under a lock (the path with
// ".lock" added), as parallel tool calls end in parallel hooks.
func WarnPath(dir, session string) string { return filepath.Join(dir, session+".json") }

// StatusPath is the file of the statusline. It is separate from the
// warnings' file so that a statusline drawn while a prompt is submitted
// can never undo the record of a warning given.
func StatusPath(dir, session string) string { return filepath.Join(dir, session+".status.json") }

// WarnState is what the warnings policy remembers about a session.
type WarnState struct {
	Progress
	// Cycle is the Compactions count the warnings below belong to: a
	// compaction starts a new cycle, in which every level warns again.
	Cycle int `json:"cycle"`
	// Warned are the levels (percentages) already warned about in this
	// cycle.
	Warned []int `json:"warned,omitempty"`
}

// Cross records that the context stands at pct percent of the threshold
// and returns the level to warn about now, if any: the highest level pct
// has reached that was not warned about in this compaction cycle. Every
// level up to pct counts as warned from then on, so that a jump from 60%
// to 95% gives one warning, not three.
func (s *WarnState) Cross(levels []int, pct float64) (int, bool) {
	if s.Compactions != s.Cycle {
		s.Cycle, s.Warned = s.Compactions, nil
	}
	crossed, ok := 0, false
	for _, lv := range levels {
		if lv <= 0 || float64(lv) > pct || slices.Contains(s.Warned, lv) {
			continue
		}
		s.Warned = append(s.Warned, lv)
		crossed, ok = max(crossed, lv), true
	}
	slices.Sort(s.Warned)
	return crossed, ok
}

// StatusState is what the statusline remembers about a session.
type StatusState struct {
	Progress
	// Window is the context window the client itself reported
	// (context_window.context_window_size), 0 until it did; the warnings
	// use it in preference to the configured one.
	Window int64  `json:"window,omitempty"`
	Model  string `json:"model,omitempty"`
	// SwappedOut is the swap summary and the index state it was read at.
	SwappedOut *SwappedOut `json:"kept,omitempty"`
	// Estimate is the tokenizer estimate while no usage is recorded,
	// with the transcript offset it was made at.
	Estimate *Estimate `json:"estimate,omitempty"`
}

// SwappedOut is what ctxkeep's swap kept out of a session's context so
// far, as the transcript shows it (internal/proof): the replacements the
// client applied and the outputs ctxkeep printed itself count; the
// replacements not checked yet and those not applied are counted apart.
type SwappedOut struct {
	Entries int   `json:"entries"` // kept out: applied, or printed by ctxkeep
	Chars   int64 `json:"chars"`   // of their originals less the views the model saw
	// Unchecked replacements wait for the check at the end of the turn;
	// NotApplied ones the client did not take (the model saw the output).
	Unchecked  int `json:"unchecked,omitempty"`
	NotApplied int `json:"not_applied,omitempty"`
	// Stamp identifies the index's state (sizes and times of its files):
	// while it is unchanged, so are the figures.
	Stamp string `json:"stamp"`
}

// KeptOutOf reads a session's swap figures (nil: none) as a SwappedOut.
func KeptOutOf(s *ctxkeep.SwapStats) *SwappedOut {
	if s == nil {
		return &SwappedOut{}
	}
	return &SwappedOut{Entries: s.KeptOut(), Chars: s.KeptOutChars, Unchecked: s.Unchecked, NotApplied: s.NotApplied}
}

// Tokens estimates the tokens kept out, at four characters a token as
// `ctxkeep replay` and `stats` count them.
func (k SwappedOut) Tokens() int64 { return k.Chars / 4 }

// Any reports whether there is anything to tell: an output kept out, or a
// replacement not checked or not applied.
func (k *SwappedOut) Any() bool { return k != nil && k.Entries+k.Unchecked+k.NotApplied > 0 }

// Short is the statusline's part: "kept out ~12k (5)", and what is not
// counted in it, "kept out ~12k (5; 2 unchecked, 1 not applied)".
func (k SwappedOut) Short() string {
	var rest []string
	if k.Unchecked > 0 {
		rest = append(rest, fmt.Sprintf("%d unchecked", k.Unchecked))
	}
	if k.NotApplied > 0 {
		rest = append(rest, fmt.Sprintf("%d not applied", k.NotApplied))
	}
	switch {
	case k.Entries == 0:
		return "kept out 0 (" + strings.Join(rest, ", ") + ")"
	case len(rest) == 0:
		return fmt.Sprintf("kept out ~%s (%d)", Short(k.Tokens()), k.Entries)
	}
	return fmt.Sprintf("kept out ~%s (%d; %s)", Short(k.Tokens()), k.Entries, strings.Join(rest, ", "))
}

// Estimate is an estimate of the context size before the client recorded
// any usage.
type Estimate struct {
	Tokens int64 `json:"tokens"`
	Offset int64 `json:"offset"` // the transcript size it was made at
}

// Load reads a state file into v; a missing or unreadable file leaves v
// as it is (the state is rebuilt from the transcript).
func Load(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if json.Unmarshal(data, v) != nil {
		return nil // a damaged state file is rebuilt, not an error
	}
	return nil
}

// Save writes a state file atomically (without fsync: it is rebuildable),
// unless it already holds v: most hook calls and statusline redraws change
// nothing, and the temporary file and rename were most of their cost.
func Save(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	err = fsx.WriteFileReplace(path, data, fsx.FilePerm)
	if errors.Is(err, fs.ErrNotExist) {
		if err = fsx.MkdirPrivate(filepath.Dir(path)); err == nil {
			err = fsx.WriteFileReplace(path, data, fsx.FilePerm)
		}
	}
	return err
}
