package transcript

import (
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// What an agent adapter gives the archive: a client's transcript read as
// turns and steps, with where each starts. Claude Code transcripts are
// read by this package itself; other clients' (Codex rollouts) by their
// adapter, which implements TurnReader. Nothing here decides anything:
// keep.ReadTurns turns it into the archive's batches.

// A TurnReader reads one client's session transcript from a cursor at the
// start of a turn or of a step: the lines from there on, within limits, cut
// into turns and steps. Agents whose transcripts hold no whole responses
// (Codex rollouts) implement it; keep.ReadTurns makes it the archive's Reader.
type TurnReader interface {
	// Read reads the transcript at path from the line at from, which starts
	// a turn, a step (the first turn read then continues the turn, with no
	// prompt) or the file, within lim, and takes every line read into
	// usage. A file shorter than the cursor is an error wrapping
	// ErrShrunk.
	Read(path string, from Cursor, usage ctxkeep.Usage, lim ReadLimits) (*TurnsRead, error)
}

// TurnsRead is what a TurnReader found from the cursor on.
type TurnsRead struct {
	Turns     []TurnAt    // in order; the last may still grow
	Summaries []SummaryAt // the compaction summaries the client wrote, in order
	Usage     ctxkeep.Usage
	Next      Cursor // the end of the last whole line read
	Problems  int    // lines that could not be read
	More      bool   // the read stopped at the limit, not at the end
}

// TurnAt is one turn of the conversation and where its first line is.
type TurnAt struct {
	Turn // texts, calls, times
	// At is the cursor of the turn's first line; zero for records before
	// the first prompt that have no line (nothing to resume from).
	At Cursor
	// Steps is the turn cut into steps by a reader that keeps no records
	// (Codex's), which alone knows the order of the model's words and
	// calls; nil: the turn is cut by its records, or is one step.
	Steps []StepAt
}

// StepAt is a step a TurnReader cut, and the cursor of its first line.
type StepAt struct {
	Step
	At Cursor
}

// SummaryAt is a compaction summary and where it is.
type SummaryAt struct {
	Text   string
	Time   time.Time
	Offset int64
}

// Dialect reads the context usage from one client's transcript lines, for
// a client whose transcripts are not Claude Code's (internal/codex reads
// Codex's rollouts); internal/watch reads usage through it.
type Dialect interface {
	// MayMatter reports cheaply whether a line can change the usage:
	// other lines are never decoded.
	MayMatter(line []byte) bool
	// Take updates u with one line, in file order, and reports whether
	// the line is a compaction.
	Take(u *ctxkeep.Usage, line []byte) (compaction bool)
	// Settles reports whether a line sets the usage by itself (a
	// response's usage): reading a large transcript backwards stops there.
	Settles(line []byte) bool
}
