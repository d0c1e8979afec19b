package archive

import (
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
)

// Cold tasks are completed tasks nobody mentions any more. Summarised once,
// their summary is kept through compaction verbatim, so the summariser can
// drop their turns without losing what they did.
const (
	ColdAfterTurns = 20 // a task completed this many turns ago, and not mentioned since, is cold
	ColdEveryTurns = 10 // how often the summaries are computed
	ColdAtPercent  = 70 // … once the context is this full
)

// ColdTasks finds the tasks of s that are cold at turn now, given the
// session's chunks, and summarises each from the turns it spanned. done
// names the tasks already summarised: they are skipped (idempotent).
func ColdTasks(s State, chunks []ctxkeep.Chunk, now int, done map[string]bool) []ctxkeep.ColdTask {
	var out []ctxkeep.ColdTask
	for _, t := range s.Tasks {
		if t.Status != "completed" || t.Completed == 0 || now-t.Completed < ColdAfterTurns || done[t.ID] {
			continue
		}
		if mentionedSince(chunks, t.Subject, now-ColdAfterTurns) {
			continue
		}
		out = append(out, ctxkeep.ColdTask{TaskID: t.ID, Subject: t.Subject, From: t.Created, To: t.Completed,
			Summary: summarizeSpan(chunks, t.Created, t.Completed)})
	}
	return out
}

func mentionedSince(chunks []ctxkeep.Chunk, subject string, turn int) bool {
	needle := strings.ToLower(subject)
	for _, c := range chunks {
		if c.Turn > turn && strings.Contains(strings.ToLower(c.Body), needle) {
			return true
		}
	}
	return false
}

// summarizeSpan says what turns from…to did: files, commands and how they
// went, decisions, errors.
func summarizeSpan(chunks []ctxkeep.Chunk, from, to int) string {
	var files, runs, decided, errs []string
	for _, c := range chunks {
		if !c.Conversation() || c.Turn < from || c.Turn > to {
			continue
		}
		for _, f := range c.Meta.FilesModified {
			files = appendNew(files, f)
		}
		for _, r := range c.Meta.Commands {
			runs = appendNew(runs, fmt.Sprintf("`%s` (exit %s)", short(r.Run, 100), itoa(r.Exit)))
		}
		for _, d := range c.Meta.Decisions {
			decided = appendNew(decided, d)
		}
		for _, e := range c.Meta.Errors {
			errs = appendNew(errs, e)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "turns %d–%d", from, to)
	section := func(name string, items []string, n int) {
		if len(items) > 0 {
			fmt.Fprintf(&b, "; %s: %s", name, strings.Join(items[:min(n, len(items))], ", "))
		}
	}
	section("files", files, 10)
	section("commands", runs, 5)
	section("decisions", decided, 4)
	section("errors met", errs, 3)
	return short(b.String(), 1200)
}
