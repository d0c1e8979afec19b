package recall

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxkeep/ctxkeep"
)

// ResolveSession finds the archived session whose id is id, or the only
// one starting with it (MatchSession).
func ResolveSession(ctx context.Context, idx ctxkeep.ArchiveIndex, id string) (string, error) {
	ids, err := idx.ChunkSessions(ctx)
	if err != nil {
		return "", err
	}
	return MatchSession(ids, strings.TrimSpace(id), "in the archive")
}

// MatchSession finds id, or the only id it is a prefix of, among ids (the
// sessions among says: "in the archive", "with stored outputs"…). None is
// an error wrapping ctxkeep.ErrNotFound, several one wrapping
// ctxkeep.ErrAmbiguous that names a few.
func MatchSession(ids []string, id, among string) (string, error) {
	var matches []string
	for _, s := range ids {
		if s == id {
			return s, nil
		}
		if id != "" && strings.HasPrefix(s, id) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return "", ctxkeep.Errorf(ctxkeep.ErrNotFound, "no session %q %s", id, among)
	case 1:
		return matches[0], nil
	}
	shown := matches[:min(3, len(matches))]
	return "", ctxkeep.Errorf(ctxkeep.ErrAmbiguous, "%q starts %d sessions %s (%s…); give more of the id", id, len(matches), among, strings.Join(shown, ", "))
}

// Recall resolves what `ctxkeep recall` is given:
//
//	KEY                  a step (or a whole turn, or a summary) by its key or a unique prefix of it
//	SESSION:T            the steps of turn T
//	SESSION:T1-T2        the steps of turns T1 to T2
//	SESSION:T.S          step S of turn T
//	SESSION:T.S1-S2      steps S1 to S2 of turn T
//	SESSION:T1.S1-T2.S2  the steps from one to the other
//
// SESSION is a session id or a unique prefix of it. The chunks come in the
// order of the conversation.
func Recall(ctx context.Context, idx ctxkeep.ArchiveIndex, ref string) ([]ctxkeep.Chunk, error) {
	session, span, ok := strings.Cut(strings.TrimSpace(ref), ":")
	if !ok {
		c, err := idx.Chunk(ctx, ref)
		if err != nil {
			return nil, err
		}
		return []ctxkeep.Chunk{c}, nil
	}
	from, to, err := parseSpan(span)
	if err != nil {
		return nil, err
	}
	if session, err = ResolveSession(ctx, idx, session); err != nil {
		return nil, err
	}
	cs, err := idx.TurnRange(ctx, session, from.turn, to.turn)
	if err != nil {
		return nil, err
	}
	var out []ctxkeep.Chunk
	for _, c := range cs {
		if !from.after(c) && !to.before(c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, &NothingInRangeError{Session: session, err: ctxkeep.Errorf(ctxkeep.ErrNotFound, "session %s has no archived %s %s", session, spanKind(span), span)}
	}
	return out, nil
}

// NothingInRangeError says that a session is archived, but not in the
// range asked for; it wraps ctxkeep.ErrNotFound.
type NothingInRangeError struct {
	Session string
	err     error
}

func (e *NothingInRangeError) Error() string { return e.err.Error() }
func (e *NothingInRangeError) Unwrap() error { return e.err }

// position is a turn and, optionally, a step in it (0: the whole turn).
type position struct{ turn, step int }

// after reports whether p is past c (c is before the start p).
func (p position) after(c ctxkeep.Chunk) bool {
	return c.Turn < p.turn || c.Turn == p.turn && p.step > 0 && c.Step < p.step
}

// before reports whether p is before c (c is past the end p).
func (p position) before(c ctxkeep.Chunk) bool {
	return c.Turn > p.turn || c.Turn == p.turn && p.step > 0 && c.Step > p.step
}

// ErrBadSpan is what a range that names no turn or step wraps.
var ErrBadSpan = errors.New("want T, T1-T2, T.S, T.S1-S2 or T1.S1-T2.S2 (turns and steps count from 1)")

// parseSpan reads T, T1-T2, T.S, T.S1-S2 or T1.S1-T2.S2.
func parseSpan(s string) (from, to position, err error) {
	a, b, ranged := strings.Cut(s, "-")
	if from, err = parsePlace(a); err != nil {
		return from, to, fmt.Errorf("bad range %q: %w", s, ErrBadSpan)
	}
	to = from
	if ranged {
		if !strings.Contains(b, ".") && from.step > 0 { // T.S1-S2
			b = strconv.Itoa(from.turn) + "." + b
		}
		if to, err = parsePlace(b); err != nil {
			return from, to, fmt.Errorf("bad range %q: %w", s, ErrBadSpan)
		}
	}
	if to.turn < from.turn || to.turn == from.turn && to.step > 0 && to.step < from.step {
		return from, to, fmt.Errorf("bad range %q: it ends before it starts: %w", s, ErrBadSpan)
	}
	return from, to, nil
}

func parsePlace(s string) (position, error) {
	t, st, stepped := strings.Cut(s, ".")
	var p position
	var err error
	if p.turn, err = strconv.Atoi(t); err != nil || p.turn < 1 {
		return p, ErrBadSpan
	}
	if stepped {
		if p.step, err = strconv.Atoi(st); err != nil || p.step < 1 {
			return p, ErrBadSpan
		}
	}
	return p, nil
}

// Place says where a chunk is in its session, as Recall takes it:
// "3.12" (turn 3, step 12), or "3" for a whole turn.
func Place(c ctxkeep.Chunk) string {
	if c.Step > 0 {
		return fmt.Sprintf("%d.%d", c.Turn, c.Step)
	}
	return strconv.Itoa(c.Turn)
}

// spanKind says what a span names: turns, or steps.
func spanKind(span string) string {
	if strings.Contains(span, ".") {
		return "step"
	}
	return "turn"
}
