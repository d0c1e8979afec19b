package cli

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/pin"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// runPin sets the pin of one stored output: prune takes unpinned outputs
// first, soft pins only when nothing unpinned is left, hard pins never.
func runPin(ctx context.Context, a *app, args []string) error {
	var level, reason string
	fs := a.flags("pin")
	fs.StringVar(&level, "level", pin.DefaultLevel.String(), "how strongly to keep it: `none`, soft or hard")
	fs.StringVar(&reason, "reason", "", "why it is kept, for `ctxkeep pins`")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("pin takes one entry id, or last").withHint("run `ctxkeep list` to see the ids")
	}
	l, err := ctxkeep.ParsePinLevel(level)
	if err != nil {
		return usageErrorf("%v", err)
	}
	return a.setPin(ctx, pos[0], l, reason)
}

// runUnpin is pin --level none.
func runUnpin(ctx context.Context, a *app, args []string) error {
	fs := a.flags("unpin")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("unpin takes one entry id, or last").withHint("run `ctxkeep pins` to see what is pinned")
	}
	return a.setPin(ctx, pos[0], ctxkeep.PinNone, "")
}

// setPin pins id, or with "last" the output stored last (in the agent's
// session when run from inside one, else in any).
func (a *app) setPin(ctx context.Context, id string, l ctxkeep.PinLevel, reason string) error {
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	if id == "last" {
		es, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: a.Getenv("CLAUDE_CODE_SESSION_ID"), Latest: true, Limit: 1})
		if err == nil && len(es) == 0 {
			err = ctxkeep.Errorf(ctxkeep.ErrNotFound, "no such entry: nothing stored yet")
		}
		if err != nil {
			return hint(err, "nothing is stored yet, so nothing can be pinned")
		}
		id = es[0].ID
	}
	e, err := st.SetPin(ctx, id, l, reason)
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		return hint(err, "run `ctxkeep list --all` to see the stored outputs")
	}
	if err != nil {
		return err
	}
	if l == ctxkeep.PinNone {
		fmt.Fprintf(a.Stdout, "unpinned %s (%s %s)\n", e.ID, e.Tool, text.Cut(text.FirstLine(e.Input), 60))
		return nil
	}
	fmt.Fprintf(a.Stdout, "pinned %s (%s %s): %s\n", e.ID, e.Tool, text.Cut(text.FirstLine(e.Input), 60), l)
	return nil
}

// pinsReport is `ctxkeep pins --json`.
type pinsReport struct {
	Pins    []ctxkeep.Entry `json:"pins"`
	Pending []pin.Waiting   `json:"pending"`
}

// runPins lists the pinned outputs and the pins waiting for outputs.
func runPins(ctx context.Context, a *app, args []string) error {
	var asJSON bool
	fs := a.flags("pins")
	fs.BoolVar(&asJSON, "json", false, "print the pins as JSON")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	r := pinsReport{Pins: []ctxkeep.Entry{}, Pending: []pin.Waiting{}}
	if es, err := st.Entries(ctx, ctxkeep.EntryFilter{Pinned: true, Latest: true}); err != nil {
		return err
	} else if es != nil {
		r.Pins = es
	}
	if w, err := pin.DirIn(d.State).List(); err != nil {
		return err
	} else if w != nil {
		r.Pending = w
	}
	if asJSON {
		return a.printJSON(r)
	}
	if len(r.Pins) == 0 && len(r.Pending) == 0 {
		fmt.Fprintln(a.Stdout, "nothing is pinned; pin an output with `ctxkeep pin ID`, or type `ccm:pin last` in a prompt")
		return nil
	}
	if len(r.Pins) > 0 {
		tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLEVEL\tWHEN\tTOOL\tCHARS\tSESSION\tCALL\tREASON")
		for _, e := range r.Pins {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", e.ID, e.PinLevel, e.CreatedAt.Local().Format("01-02 15:04"),
				e.Tool, e.Chars, text.Abbrev(e.SessionID), text.Cut(text.FirstLine(e.Input), 40), orDash(e.PinReason))
		}
		tw.Flush()
	}
	for _, w := range r.Pending {
		what := "its next stored output"
		if w.Kind == pin.KindRange {
			what = "every output it stores until `ccm:pin end`"
		}
		fmt.Fprintf(a.Stdout, "waiting: session %s pins %s (%s, since %s)%s\n", w.SessionID, what, w.Level,
			w.Since.Local().Format("01-02 15:04"), reasonSuffix(w.Reason))
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}
