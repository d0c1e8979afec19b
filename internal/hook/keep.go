package hook

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/sqlite"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// archiveTurn brings the session's archive up to date at the end of a turn
// (Stop) and of the session (SessionEnd): reading only what is new, so that
// PreCompact has little left to read.
func archiveTurn(ctx context.Context, c *Call) (*Reply, error) {
	st, s, err := c.keepSession()
	if err != nil || st == nil {
		return nil, err
	}
	_, err = keep.Archive(ctx, st, s)
	return nil, err
}

// preserve answers PreCompact: archive what is new, then print the
// preservation notes, which the client appends to the summarisation prompt.
// It never blocks compaction: on failure the dispatcher prints nothing.
func preserve(ctx context.Context, c *Call) (*Reply, error) {
	st, s, err := c.keepSession()
	if err != nil || st == nil {
		return nil, err
	}
	text, err := keep.Preserve(ctx, st, s, c.Event.Trigger, c.keepOptions())
	if err != nil {
		return nil, err
	}
	return &Reply{Text: text}, nil
}

// restoreAfterCompact answers SessionStart with source "compact": the
// working state, the stored outputs and the relevant earlier turns, into
// the first request after the summary.
func restoreAfterCompact(ctx context.Context, c *Call) (*Reply, error) {
	if c.Event.Source != "compact" {
		return nil, nil
	}
	st, s, err := c.keepSession()
	if err != nil || st == nil {
		return nil, err
	}
	text, err := keep.Restore(ctx, st, s, c.keepOptions())
	if err != nil {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{HookEventName: c.Event.HookEventName, AdditionalContext: text}}, nil
}

// recallOnPrompt (keep.recall_on_prompt, off by default) adds the archived
// turns of the project that match a new prompt well, within a budget.
func recallOnPrompt(ctx context.Context, c *Call) (*Reply, error) {
	if !c.Config.Keep.RecallOnPrompt || strings.TrimSpace(c.Event.Prompt) == "" {
		return nil, nil
	}
	st, s, err := c.keepSession()
	if err != nil || st == nil {
		return nil, err
	}
	hits, err := st.Index.SearchChunks(ctx, sqlite.ChunkQuery{Text: c.Event.Prompt, Project: s.Project, Kind: "turn", Limit: 10})
	if err != nil || len(hits) == 0 {
		return nil, nil // nothing to search for, or nothing found
	}
	var good []sqlite.ChunkHit
	for _, h := range hits {
		if -h.BM25 >= float64(c.Config.Keep.RecallMinScore) {
			good = append(good, h)
		}
	}
	ranked, err := search.Rank(ctx, c.Event.Prompt, good, search.Signals{Now: c.Env.Now()})
	if err != nil || len(ranked) == 0 {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{HookEventName: c.Event.HookEventName, AdditionalContext: recallText(ranked, c.Config.Keep.RecallBudget)}}, nil
}

func recallText(rs []search.Result, budget int) string {
	var b strings.Builder
	b.WriteString("ctxkeep found earlier turns of this project that match the request (`ctxkeep recall KEY` prints one exactly):\n")
	for _, r := range rs {
		line := fmt.Sprintf("- %s (session %s, turn %d): %s\n", r.Key, r.SessionID[:min(8, len(r.SessionID))], r.Turn, r.Summary)
		if b.Len()+len(line) > budget {
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// keepSession opens the store for the session's archive; the store is nil
// when keep.enabled is off.
func (c *Call) keepSession() (*store.Store, keep.Session, error) {
	if !c.Config.Keep.Enabled {
		return nil, keep.Session{}, nil
	}
	if _, err := claudecode.SessionDir(c.Event.TranscriptPath, c.Event.SessionID); err != nil {
		return nil, keep.Session{}, err
	}
	st, err := c.Store()
	if err != nil {
		return nil, keep.Session{}, err
	}
	return st, keep.Session{ID: c.Event.SessionID, Project: c.project(), Transcript: c.Event.TranscriptPath}, nil
}

func (c *Call) keepOptions() keep.Options {
	cfg := c.Config
	return keep.Options{
		PreserveBudget:   cfg.Keep.PreserveBudget,
		RestoreBudget:    cfg.Restore.Budget,
		Relevant:         cfg.Keep.Relevant,
		GitTimeout:       cfg.Keep.GitTimeout,
		InstructionsFile: filepath.Join(c.Dirs.Config, keep.InstructionsFileName),
		IsCheck:          func(cmd string) bool { return swap.RunsAny(cmd, cfg.Wrapper.Commands) },
		Now:              c.Env.Now(),
	}
}
