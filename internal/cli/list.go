package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// runList prints the swap inventory: what was kept out of the context and
// how to get it back.
func runList(ctx context.Context, a *app, args []string) error {
	var session string
	var all, asJSON bool
	fs := a.flags("list")
	fs.StringVar(&session, "session", "", "list one session's outputs (an id or a unique prefix); default: the latest session")
	fs.BoolVar(&all, "all", false, "list every session's outputs")
	fs.BoolVar(&asJSON, "json", false, "print the entries as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	if !all {
		if session, err = a.pickSession(ctx, st, session); err != nil {
			return err
		}
	}
	entries, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: session})
	if err != nil {
		return err
	}
	if asJSON {
		if entries == nil {
			entries = []ctxkeep.Entry{}
		}
		return a.printJSON(map[string]any{"entries": entries})
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.Stdout, "nothing stored yet")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHEN\tTOOL\tCHARS\tVIEW\tGOT\tCALL\tSUMMARY")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", e.ID, e.CreatedAt.Local().Format("01-02 15:04"),
			e.Tool, e.Chars, e.ViewChars, e.AccessCount, text.Cut(text.FirstLine(e.Input), 60), text.Cut(e.Summary, 70))
	}
	tw.Flush()
	fmt.Fprintln(a.Stdout, "\nprint one with `ctxkeep show ID` (or --lines A:B, --grep RE, --failures, --tail N)")
	return nil
}

// pickSession resolves a session id or prefix among those with entries;
// "" means the one with the latest entry.
func (a *app) pickSession(ctx context.Context, st *store.Store, id string) (string, error) {
	ids, err := st.EntrySessions(ctx)
	if err != nil {
		return "", err
	}
	if id == "" {
		if len(ids) == 0 {
			return "", nil
		}
		return ids[0], nil
	}
	return matchSession(ids, id)
}
