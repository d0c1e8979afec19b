package hook

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// inventoryBudget bounds the inventory injected on resume, well inside the
// 10,000 characters the client inlines.
const inventoryBudget = 4000

// sessionStart reminds a resumed session of the outputs ctxkeep kept out
// of its context, and how to get each back.
func sessionStart(ctx context.Context, c *Call) (*Reply, error) {
	if c.Event.Source != "resume" {
		return nil, nil
	}
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	entries, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: c.Event.SessionID})
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{
		HookEventName:     c.Event.HookEventName,
		AdditionalContext: Inventory(entries, inventoryBudget, c.retrieval()),
	}}, nil
}

// Inventory lists stored outputs, newest first, within budget characters.
func Inventory(entries []ctxkeep.Entry, budget int, r swap.Retrieval) string {
	var b strings.Builder
	how := "print one with `ctxkeep show ID` (or --lines A:B, --grep RE, --failures)"
	if r.Tools != "" {
		how = "get one with " + r.Show("ID") + " (or lines, grep, failures)"
	}
	b.WriteString("ctxkeep kept these tool outputs of this session out of the context, exactly; " + how + ", or Read its copy with offset/limit:\n")
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		line := fmt.Sprintf("- %s %s `%s`: %s", e.ID, e.Tool, text.Cut(text.FirstLine(e.Input), 120), e.Summary)
		if e.CopyPath != "" {
			line += " (copy: " + e.CopyPath + ")"
		}
		line += "\n"
		more := fmt.Sprintf("… and %d older: `ctxkeep list`\n", i+1)
		if b.Len()+len(line)+len(more) > budget {
			b.WriteString(more)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
