package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/logfile"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// prove brings the proof of effect of a session up to date before a
// command counts what swap kept out: the replacements still waiting for
// their verdict (a turn whose Stop has not run yet, a session that ended
// without SessionEnd) are checked in the transcript now, as Stop would.
// It reports whether any verdict was stored. A transcript that cannot be
// read leaves them unchecked, and says so in the log only: the figures
// then name them as such.
func (a *app) prove(ctx context.Context, st ctxkeep.Local, session, transcript string) bool {
	if transcript == "" {
		return false
	}
	cfg, _, err := a.config()
	if err != nil {
		return false
	}
	agent := ctxkeep.AgentClaudeCode
	switch {
	case codex.IsRollout(transcript):
		agent = ctxkeep.AgentCodex
	case gemini.IsChat(transcript):
		agent = ctxkeep.AgentGemini
	}
	n, err := proof.Check(ctx, st, session, transcript, agent, cfg.Limits.TranscriptReadBytes)
	if d, derr := a.dirs(); err != nil && derr == nil {
		logfile.Append(d.Log(), a.Now(), fmt.Sprintf("proof of effect, session %s: %v", session, err))
	}
	return n > 0
}

// keptOut says what swap kept out of a session's context, as the
// transcript shows it: "5 outputs, ~12,000 tokens", and what is not
// counted in it ("; 2 replaced, not checked yet; 1 not applied: the model
// saw it whole").
func keptOut(p ctxkeep.Proof) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, ~%s tokens (%s characters)", text.Plural(p.KeptOut(), "output"), watch.Thousands((p.KeptOutChars+3)/4), watch.Thousands(p.KeptOutChars))
	if p.Unchecked > 0 {
		fmt.Fprintf(&b, "; %d more replaced, not checked yet (~%s tokens if the client took them)", p.Unchecked, watch.Thousands((p.UncheckedChars+3)/4))
	}
	if p.NotApplied > 0 {
		fmt.Fprintf(&b, "; %d replacement(s) not applied: the model saw those outputs whole", p.NotApplied)
	}
	return b.String()
}

// keptCell is keptOut for a table cell: "5", "5 (2 unchecked, 1 not
// applied)".
func keptCell(p ctxkeep.Proof) string {
	var rest []string
	if p.Unchecked > 0 {
		rest = append(rest, fmt.Sprintf("%d unchecked", p.Unchecked))
	}
	if p.NotApplied > 0 {
		rest = append(rest, fmt.Sprintf("%d not applied", p.NotApplied))
	}
	if len(rest) == 0 {
		return fmt.Sprint(p.KeptOut())
	}
	return fmt.Sprintf("%d (%s)", p.KeptOut(), strings.Join(rest, ", "))
}
