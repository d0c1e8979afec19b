package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/pin"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

var pinCmd = &command{
	name:    "pin",
	usage:   "pin ID|last [--level LEVEL] [--reason R]",
	summary: "keep a stored output: prune takes soft pins last and hard pins never",
	group:   groupOutputs,
	long: `Sets a stored output's pin. Prune takes unpinned outputs first, soft pins only when nothing
unpinned is left and the store is still over its size, hard pins never. ID is an entry id or a
unique prefix; last is the output stored last (in the session of $CLAUDE_CODE_SESSION_ID when
run from the agent's Bash, else in any). Without --level, an output already pinned harder keeps
its level; without --reason, it keeps its reason. In a prompt,
` + "`ccm:pin last|next|start|end [hard] [reason=\"…\"]`" + ` and the slash commands /pin-last, /pin-next,
/pin-start, /pin-end do the same (docs/TEND.md).`,
	examples: []string{
		"ctxkeep pin last",
		`ctxkeep pin 15c192b60fee --level hard --reason "the failing deploy log"`,
	},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &pinOptions{}
		fs.StringVar(&o.level, "level", "", "how strongly to keep it, `LEVEL`: none, soft or hard (default: soft, or the higher level the output already has)")
		fs.StringVar(&o.reason, "reason", "", "why it is kept, `R`, shown by `ctxkeep pins`")
		return o.run
	},
}

var unpinCmd = &command{
	name:    "unpin",
	usage:   "unpin ID|last",
	summary: "remove an output's pin",
	group:   groupOutputs,
	long: `Removes the pin of a stored output (the same as ` + "`ctxkeep pin ID --level none`" + `): prune may take
it again by age and size. ID is an entry id or a unique prefix; last is the output stored last.
An output that was not pinned is left as it is, and the command says so.`,
	examples: []string{"ctxkeep unpin 15c192b60fee", "ctxkeep unpin last"},
	setup: func(*flag.FlagSet) runFunc {
		return func(ctx context.Context, a *app, pos []string) error {
			if len(pos) != 1 {
				return usageErrorf("unpin takes one entry id, or last").withHint("run `ctxkeep pins` to see what is pinned")
			}
			return a.setPin(ctx, pos[0], ctxkeep.PinNone, true, "")
		}
	},
}

type pinOptions struct{ level, reason string }

func (o *pinOptions) run(ctx context.Context, a *app, pos []string) error {
	if len(pos) != 1 {
		return usageErrorf("pin takes one entry id, or last").withHint("run `ctxkeep list` to see the ids")
	}
	l := pin.DefaultLevel
	if o.level != "" {
		var err error
		if l, err = ctxkeep.ParsePinLevel(o.level); err != nil {
			return usageErrorf("bad --level: %v", err)
		}
	}
	return a.setPin(ctx, pos[0], l, o.level != "", o.reason)
}

// setPin pins id, or with "last" the output stored last (in the agent's
// session when run from inside one, else in any), and says what changed.
// Without a level given (levelSet), the output keeps a higher level than
// the default, and without a reason, the reason it has.
func (a *app) setPin(ctx context.Context, id string, l ctxkeep.PinLevel, levelSet bool, reason string) error {
	st, err := a.storeIfAny(ctx)
	if err != nil {
		return err
	}
	before, err := a.pinTarget(ctx, st, id)
	if err != nil {
		return err
	}
	l, reason = pin.Merge(before, l, levelSet, reason)
	what := fmt.Sprintf("%s (%s %s)", before.ID, before.Tool, callCell(before.Input, 60))
	if before.PinLevel == l && reason == before.PinReason {
		if l == ctxkeep.PinNone {
			fmt.Fprintf(a.Stdout, "%s was not pinned; nothing changed\n", what)
		} else {
			fmt.Fprintf(a.Stdout, "%s was already pinned %s; nothing changed\n", what, l)
		}
		return nil
	}
	if _, err := st.SetPin(ctx, before.ID, l, reason); err != nil {
		return err
	}
	switch {
	case l == ctxkeep.PinNone:
		fmt.Fprintf(a.Stdout, "unpinned %s (it was pinned %s)\n", what, before.PinLevel)
	case before.PinLevel == ctxkeep.PinNone:
		fmt.Fprintf(a.Stdout, "pinned %s: %s\n", what, l)
	default:
		fmt.Fprintf(a.Stdout, "pinned %s: %s (it was %s)\n", what, l, before.PinLevel)
	}
	return nil
}

// pinTarget resolves an entry id, a unique prefix, or "last".
func (a *app) pinTarget(ctx context.Context, st ctxkeep.Local, id string) (ctxkeep.Entry, error) {
	if id == "last" {
		es, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: a.Getenv("CLAUDE_CODE_SESSION_ID"), Latest: true, Limit: 1})
		if err == nil && len(es) == 0 {
			err = hint(ctxkeep.Errorf(ctxkeep.ErrNotFound, "no stored output yet"), "the hooks store large tool outputs as they happen; `ctxkeep list` shows them")
		}
		if err != nil {
			return ctxkeep.Entry{}, err
		}
		return es[0], nil
	}
	return a.entryByID(ctx, st, id)
}

var pinsCmd = &command{
	name:    "pins",
	usage:   "pins [--json]",
	summary: "list the pinned outputs and the pins waiting for outputs",
	group:   groupOutputs,
	long: `Lists the pinned outputs of every project, newest first (id, level, when, tool, size, session,
the call, the reason), and the pins waiting for outputs: ` + "`ccm:pin next`" + ` and an open
` + "`ccm:pin start`" + ` in a session. Pins of other projects than this one are counted in a note on
stderr (with --json, each pin has its "project").`,
	examples: []string{"ctxkeep pins", "ctxkeep pins --json"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &pinsOptions{}
		fs.BoolVar(&o.json, "json", false, "print the pins as JSON")
		return o.run
	},
}

type pinsOptions struct{ json bool }

// pinsReport is `ctxkeep pins --json`.
type pinsReport struct {
	Pins    []ctxkeep.Entry `json:"pins"`
	Pending []pin.Waiting   `json:"pending"`
}

func (o *pinsOptions) run(ctx context.Context, a *app, pos []string) error {
	if err := noArgs("pins", pos); err != nil {
		return err
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	var r pinsReport
	var es []ctxkeep.Entry
	st, err := a.storeIfAny(ctx)
	switch {
	case errors.Is(err, errNoStore):
	case err != nil:
		return err
	default:
		if es, err = st.Entries(ctx, ctxkeep.EntryFilter{Pinned: true, Latest: true}); err != nil {
			return err
		}
	}
	w, err := pin.DirIn(d.State).List()
	if err != nil {
		return err
	}
	r.Pins, r.Pending = orEmpty(printableEntries(es)), orEmpty(w)
	for i := range r.Pending {
		r.Pending[i].Reason = printable(r.Pending[i].Reason)
	}
	if o.json {
		return a.printJSON(r)
	}
	r.print(a)
	if note := othersPins(r.Pins, a.projectDir()); note != "" {
		fmt.Fprintf(a.Stderr, "ctxkeep: note: %s\n", note)
	}
	return nil
}

// othersPins says which of the pins listed are other projects' outputs
// than this one's (here): pins lists every project's, and a row does not
// show its project. "" when all are this project's.
func othersPins(pins []ctxkeep.Entry, here string) string {
	n := 0
	var projects []string
	for _, e := range pins {
		if p := entryProject(e); p != here {
			n++
			if p == "" {
				p = "a project not recorded"
			}
			if !slices.Contains(projects, p) {
				projects = append(projects, p)
			}
		}
	}
	switch {
	case n == 0:
		return ""
	case n == 1:
		return fmt.Sprintf("1 of these pins is another project's output (%s), not this project's (%s)", projects[0], here)
	}
	return fmt.Sprintf("%d of these pins are other projects' outputs (%s), not this project's (%s)", n, strings.Join(projects, ", "), here)
}

func (r pinsReport) print(a *app) {
	if len(r.Pins) == 0 && len(r.Pending) == 0 {
		fmt.Fprintln(a.Stdout, "nothing is pinned")
		a.tip("pin an output with `ctxkeep pin ID`, or type `ccm:pin last` in a prompt")
		return
	}
	if len(r.Pins) > 0 {
		tw := a.table("ID\tLEVEL\tWHEN\tTOOL\tCHARS\tSESSION\tCALL\tREASON")
		for _, e := range r.Pins {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", e.ID, e.PinLevel, e.CreatedAt.Local().Format("01-02 15:04"),
				e.Tool, e.Chars, text.Abbrev(e.SessionID), callCell(e.Input, 40), orDash(cell(e.PinReason, 60)))
		}
		tw.Flush()
	}
	for _, w := range r.Pending {
		what := "its next stored output"
		if w.Kind == pin.KindRange {
			what = "every output it stores until `ccm:pin end`"
		}
		reason := ""
		if w.Reason != "" {
			reason = ": " + cell(w.Reason, 60)
		}
		fmt.Fprintf(a.Stdout, "waiting: session %s pins %s (%s, since %s)%s\n", w.SessionID, what, w.Level,
			w.Since.Local().Format("01-02 15:04"), reason)
	}
}
