package hook

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// archiveTurn brings the session's archive up to date at the end of a turn
// (Stop) and of the session (SessionEnd): reading only what is new, so that
// PreCompact has little left to read. As compaction nears, it also
// summarises the tasks that went cold, for PreCompact to hand on.
func archiveTurn(ctx context.Context, c *Call) (*Reply, error) {
	st, s, err := c.keepSession()
	if err != nil || st == nil {
		return nil, err
	}
	res, err := keep.Archive(ctx, st, s)
	if err == nil && (res.More || res.Skipped > 0) {
		c.logf("session=%s: archived %d bytes of the transcript (limits.transcript_read_bytes), %d lines over limits.transcript_line_bytes skipped; more=%t: the next turns go on, or `ctxkeep archive %s`",
			s.ID, res.Read, res.Skipped, res.More, s.Transcript)
	}
	if err != nil || !res.Usage.Known() || res.Usage.Compacted {
		return nil, err
	}
	percent := c.limits(res.Usage, res.Usage.Tokens).OfThreshold(res.Usage.Tokens)
	_, err = keep.UpdateCold(ctx, st, s, res.Turns, percent, c.isCheck, c.Env.Now())
	return nil, err
}

// limitsFor are the session's context thresholds, as the client computes
// them for the model: the window it reported to the statusline if it did,
// else the configured one, or a larger one if the session's context has
// gone past it (peak: the largest size seen).
func (c *Call) limitsFor(model string, peak int64) watch.Limits {
	var status watch.StatusState
	_ = watch.Load(watch.StatusPath(watch.Dir(c.Dirs.State), c.Event.SessionID), &status)
	return watch.LimitsFor(c.Config, model, status.Window, max(peak, status.Peak), watch.ReadClientEnv(c.Env.Getenv))
}

// isCheck tells test, build and lint commands from the rest.
func (c *Call) isCheck(command string) bool { return swap.RunsAny(command, c.Config.Wrapper.Commands) }

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
	if err := c.saveRestored(text); err != nil {
		c.logf("session=%s: keep the restore block for PostCompact: %v", s.ID, err)
	}
	return &Reply{Specific: &SpecificOutput{HookEventName: c.Event.HookEventName, AdditionalContext: text}}, nil
}

// recallOnPrompt (keep.recall_on_prompt, off by default) adds the archived
// steps of the project that match a new prompt well, within a budget:
// each with its key, where it is, its summary and what in it the prompt
// named. The session's own steps still in its context are left out: all
// of them until it is compacted, those since its last compaction after.
func recallOnPrompt(ctx context.Context, c *Call) (*Reply, error) {
	if !c.Config.Keep.RecallOnPrompt || !c.Config.Keep.Enabled || strings.TrimSpace(c.Event.Prompt) == "" {
		return nil, nil
	}
	// Unlike archiving, recall needs no transcript: a new session's first
	// prompt comes before the client has written one.
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	ranked, err := search.Search(ctx, st, search.Query{Text: c.Event.Prompt, Project: c.Project, Conversation: true,
		Limit: recallLimit, MinLexical: float64(c.Config.Keep.RecallMinScore)}, search.Signals{Now: c.Env.Now()})
	if err != nil {
		return nil, nil // nothing to search for
	}
	compacted := time.Time{} // when this session was last compacted, if it was
	if fi, err := os.Stat(c.restoredPath()); err == nil {
		compacted = fi.ModTime()
	}
	ranked = slices.DeleteFunc(ranked, func(r search.Result) bool {
		return r.SessionID == c.Event.SessionID && (compacted.IsZero() || !r.End.Before(compacted))
	})
	if len(ranked) == 0 {
		return nil, nil
	}
	return &Reply{Specific: &SpecificOutput{HookEventName: c.Event.HookEventName,
		AdditionalContext: recallText(ranked, c.Event.Prompt, c.Config.Keep.RecallBudget, c.retrieval())}}, nil
}

// recallLimit is how many steps are searched for to recall on a prompt.
const recallLimit = 10

// recallText lists recalled steps within budget bytes.
func recallText(rs []search.Result, prompt string, budget int, r swap.Retrieval) string {
	var b strings.Builder
	b.WriteString("ctxkeep found earlier steps of this project that match the request (" + r.Recall("KEY") + " prints one exactly):\n")
	for _, h := range rs {
		line := fmt.Sprintf("- %s (session %s, %s %s): %s\n", h.Key, h.SessionID[:min(8, len(h.SessionID))], h.Kind, recall.Place(h.Chunk), text.Squash(h.Summary, 300))
		for l := range strings.Lines(search.Named(h.Chunk, prompt).Text()) {
			line += "  " + text.Squash(l, 300) + "\n"
		}
		if b.Len()+len(line) > budget {
			break
		}
		b.WriteString(line)
	}
	return text.Printable(b.String())
}

// keepSession opens the store for the session's archive. The store is nil,
// and nothing is to be done, when keep.enabled is off or when there is no
// transcript to read: a path that is not an absolute, clean .jsonl path,
// or a file not written yet. Reading the transcript the client names is
// safe; ctxkeep never writes beside it here.
func (c *Call) keepSession() (ctxkeep.Local, keep.Session, error) {
	path := c.Event.TranscriptPath
	if !c.Config.Keep.Enabled || !filepath.IsAbs(path) || filepath.Clean(path) != path || filepath.Ext(path) != ".jsonl" {
		return nil, keep.Session{}, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, keep.Session{}, nil
	}
	st, err := c.Store()
	if err != nil {
		return nil, keep.Session{}, err
	}
	// This call reads the transcript, maybe megabytes of it: the garbage
	// collector the hook turns off (noGC) comes back on, so that memory is
	// bounded by one batch of lines rather than by all that was read.
	debug.SetGCPercent(100)
	s := keep.Session{ID: c.Event.SessionID, Project: c.Project, Transcript: path, Limits: keep.Limits{
		ReadBytes: c.Config.Limits.TranscriptReadBytes, LineBytes: int(c.Config.Limits.TranscriptLineBytes)}}
	switch c.Agent {
	case ctxkeep.AgentCodex:
		s.Agent, s.Read = c.Agent, keep.ReadTurns(codex.Reader{})
	case ctxkeep.AgentGemini:
		s.Agent, s.Read = c.Agent, keep.ReadTurns(gemini.Reader{})
	}
	return st, s, nil
}

func (c *Call) keepOptions() keep.Options {
	cfg := c.Config
	o := keep.Options{
		PreserveBudget:   cfg.Keep.PreserveBudget,
		RestoreBudget:    cfg.Restore.Budget,
		Relevant:         cfg.Keep.Relevant,
		GitTimeout:       cfg.Keep.GitTimeout,
		InstructionsFile: filepath.Join(c.Dirs.Config, keep.InstructionsFileName),
		IsCheck:          c.isCheck,
		Now:              c.Env.Now(),
		Retrieval:        c.retrieval(),
	}
	if c.Agent == ctxkeep.AgentCodex {
		o.RestoreBudget = min(o.RestoreBudget, codex.MaxHookText) // Codex cuts longer hook text
	}
	return o
}
