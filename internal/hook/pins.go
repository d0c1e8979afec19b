package hook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/pin"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// pinDirectives applies the pin directives typed in a prompt (ccm:pin …,
// or /pin-last and the other slash commands ctxkeep installs) and tells
// the user what it did. A prompt made only of directives is dropped before
// it reaches the model: there is nothing for the model to do, and the user
// reads the outcome as the reason the prompt was dropped. A prompt with a
// directive that does not parse pins nothing at all.
func pinDirectives(ctx context.Context, c *Call) (*Reply, error) {
	if !pin.Mentions(c.Event.Prompt) {
		return nil, nil
	}
	ds, only, err := pin.Parse(c.Event.Prompt)
	if len(ds) == 0 && err == nil {
		return nil, nil
	}
	var done []string
	if err != nil {
		done = []string{fmt.Sprintf("ctxkeep: could not read the pin directive on %v; nothing was pinned. Write: %s", err, pin.Usage)}
	} else {
		for _, d := range ds {
			msg, err := c.applyDirective(ctx, d)
			if err != nil {
				return nil, err
			}
			done = append(done, "ctxkeep: "+msg)
		}
	}
	text := strings.Join(done, "\n")
	if only {
		return &Reply{Decision: "block", Reason: text}, nil
	}
	r := &Reply{SystemMessage: text}
	if err == nil {
		r.Specific = &SpecificOutput{HookEventName: c.Event.HookEventName,
			AdditionalContext: "The ccm:pin lines of this prompt are directives for ctxkeep, already handled; nothing to do about them:\n" + text}
	}
	return r, nil
}

// applyDirective carries out one directive for the call's session and
// says what it did. Its error is for failures of the store, not of the
// user: those are told in the message.
func (c *Call) applyDirective(ctx context.Context, d pin.Directive) (string, error) {
	session := c.Event.SessionID
	pending := pin.DirIn(c.Dirs.State)
	now := c.Env.Now()
	switch d.Target {
	case pin.Next:
		replaced, err := pending.Set(session, pin.KindNext, pin.Pending{Level: d.Level, Reason: d.Reason, Since: now})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("the next stored output of this session will be pinned (%s)%s", d.Level, note(replaced, "; it replaces the pin-next waiting")), nil
	case pin.Start:
		replaced, err := pending.Set(session, pin.KindRange, pin.Pending{Level: d.Level, Reason: d.Reason, Since: now})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("every output stored from now on is pinned (%s) until ccm:pin end%s", d.Level, note(replaced, "; the range already open restarts now")), nil
	case pin.End:
		return c.endRange(ctx, pending)
	}
	st, err := c.Store()
	if err != nil {
		return "", err
	}
	var e ctxkeep.Entry
	if d.Target == pin.Last {
		e, err = latestEntry(ctx, st, session)
	} else {
		e, err = st.Entry(ctx, d.ID)
	}
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		if d.Target == pin.Last {
			return "this session has no stored output yet, nothing was pinned; ccm:pin next pins the next one", nil
		}
		return fmt.Sprintf("%v; nothing was pinned", err), nil
	}
	if err != nil {
		return "", err
	}
	level, reason := pin.Merge(e, d.Level, d.LevelSet, d.Reason)
	if level == e.PinLevel && reason == e.PinReason {
		what := fmt.Sprintf("%s (%s `%s`)", e.ID, e.Tool, text.Cut(text.FirstLine(e.Input), 60))
		if level == ctxkeep.PinNone {
			return what + " was not pinned; nothing changed", nil
		}
		return fmt.Sprintf("%s was already pinned %s; nothing changed", what, level), nil
	}
	if e, err = st.SetPin(ctx, e.ID, level, reason); err != nil {
		return "", err
	}
	if d.Level == ctxkeep.PinNone {
		return fmt.Sprintf("unpinned %s (%s `%s`)", e.ID, e.Tool, text.Cut(text.FirstLine(e.Input), 60)), nil
	}
	return fmt.Sprintf("pinned %s (%s `%s`) %s", e.ID, e.Tool, text.Cut(text.FirstLine(e.Input), 60), e.PinLevel), nil
}

// endRange closes the session's pin range and counts what it pinned.
func (c *Call) endRange(ctx context.Context, pending pin.Dir) (string, error) {
	p, ok, err := pending.Take(c.Event.SessionID, pin.KindRange)
	if err != nil || !ok {
		return "no pin range was open (ccm:pin start opens one)", err
	}
	st, err := c.Store()
	if err != nil {
		return "", err
	}
	pinned, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: c.Event.SessionID, Pinned: true, Since: p.Since})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("pin range closed: %d output(s) stored since it opened are pinned", len(pinned)), nil
}

// latestEntry is the entry stored last in session: ErrNotFound when there
// is none.
func latestEntry(ctx context.Context, st ctxkeep.OutputStore, session string) (ctxkeep.Entry, error) {
	es, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: session, Latest: true, Limit: 1})
	if err == nil && len(es) == 0 {
		err = ctxkeep.Errorf(ctxkeep.ErrNotFound, "no such entry: nothing stored yet")
	}
	if err != nil {
		return ctxkeep.Entry{}, err
	}
	return es[0], nil
}

func note(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// pendingPin gives an output about to be stored the pin a "ccm:pin next"
// or an open "ccm:pin start" left for it. It is called every time an
// output is stored, so it must cost next to nothing when no pin waits; a
// problem reading the pending pins is logged and the output stored
// unpinned.
func (c *Call) pendingPin(e *ctxkeep.Entry) {
	p, ok, err := pin.DirIn(c.Dirs.State).Claim(e.SessionID)
	if err != nil {
		c.logf("%s session=%s: pending pin: %v", c.Event.HookEventName, e.SessionID, err)
	}
	if ok {
		e.PinLevel, e.PinReason = p.Level, p.Reason
	}
}
