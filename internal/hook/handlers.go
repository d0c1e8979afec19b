package hook

import (
	"context"
)

// handlers routes each event ctxkeep registers for. Every call is recorded
// in the journal by the dispatcher; the handlers here add the work their
// event is the right moment for. An event that several features act on
// lists their policies with all(…), in the order they run.
var handlers = map[string]handler{
	"SessionStart":       all(forgetReads, sessionStart, restoreAfterCompact),
	"UserPromptSubmit":   all(pinDirectives, handOnSupplement, usageWarnings, recallOnPrompt),
	"PreToolUse":         preToolUse,
	"PostToolUse":        all(postToolUse, handOnSupplement, usageWarnings),
	"PostToolUseFailure": postToolUseFailure,
	"PreCompact":         all(forgetReads, indexJournal, preserve),
	"PostCompact":        noteWhatTheSummaryLacks,
	"Stop":               all(indexJournal, proveReplacements, archiveTurn, pruneOverLimit),
	"SubagentStop":       nothing,
	"SessionEnd":         all(forgetReads, indexJournal, proveReplacements, archiveTurn, startTeamSync, tendAtSessionEnd),
}

// nothing is the policy of an event that is only recorded (the dispatcher
// journals every call).
func nothing(context.Context, *Call) (*Reply, error) { return nil, nil }

// indexJournal moves the session's new journal lines into the index, and
// learns the commands whose output was large from them. It runs at the end
// of a turn (Stop), before compaction and at session end: rare enough to
// pay for a transaction, often enough that `ctxkeep stats` has little left
// to do.
func indexJournal(ctx context.Context, c *Call) (*Reply, error) {
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	_, err = c.Ingest(ctx, st, c.Event.SessionID)
	return nil, err
}
