// Package prune decides which stored outputs go, and removes them in the
// write order that makes a crash harmless (rows, then blobs, then readable
// copies).
//
// What goes, in order:
//
//  1. expired outputs: unpinned ones past their retention (Expiry), or with
//     Options.MaxAge older than that;
//  2. the oldest unpinned outputs of a session past
//     limits.entries_per_session;
//  3. with Options.Session, every unpinned output of that session (the
//     user ended it: /clear, /exit, logout);
//  4. with Options.Unreferenced, unpinned outputs of sessions whose
//     transcript is gone;
//  5. while the store is over its size target: unpinned outputs, those
//     never retrieved first, oldest first; then, with Options.SoftPins (an
//     explicit `ctxkeep prune --pinned`, never a hook), soft pins in the
//     same order. Hard pins never go.
//
// Planning (Make) reads the index and changes nothing, so a dry run shows
// exactly what a run would remove.
package prune

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
)

// Reasons an output goes.
const (
	Expired      = "expired"
	OverCount    = "over limits.entries_per_session"
	SessionEnded = "session ended"
	Unreferenced = "transcript gone"
	OverSize     = "over the size limit"
)

// Options say what to prune beyond the retention rules.
type Options struct {
	Now time.Time
	// MaxAge, when set, replaces the retention rules: unpinned outputs not
	// created or retrieved within MaxAge go.
	MaxAge time.Duration
	// MaxBytes, when set, is the size the store is brought down to.
	// Otherwise a store over limits.total_bytes is brought down to
	// AutoTarget of it.
	MaxBytes int64
	// Session, when set, removes every unpinned output of that session.
	Session string
	// Unreferenced removes the unpinned outputs of sessions whose
	// transcript no longer exists.
	Unreferenced bool
	// Limit caps the number of outputs removed (0: no cap), for hooks that
	// must finish within their deadline; the next run goes on.
	Limit int
	// SoftPins lets a store over its size target lose soft-pinned outputs
	// once no unpinned one is left. Purge's stubs are soft pins that a
	// transcript refers to: only the user, by an explicit command, may
	// take them.
	SoftPins bool
}

// AutoTarget is the fraction of limits.total_bytes a store over it is
// brought down to, so that prune does not run again at the next output.
const AutoTarget = 0.9

// Item is one output to remove.
type Item struct {
	Entry  ctxkeep.Entry `json:"entry"`
	Reason string        `json:"reason"`
	Frees  int64         `json:"frees_bytes"` // stored bytes returned; 0 when another output shares its blob
}

// Plan is what a prune removes.
type Plan struct {
	Items  []Item `json:"items"`
	Before int64  `json:"store_bytes_before"` // stored bytes of every blob
	After  int64  `json:"store_bytes_after"`
	Target int64  `json:"target_bytes,omitempty"` // the size aimed at, when over it
}

// Frees is the stored bytes the plan returns.
func (p *Plan) Frees() int64 { return p.Before - p.After }

// Entries are the outputs the plan removes.
func (p *Plan) Entries() []ctxkeep.Entry {
	es := make([]ctxkeep.Entry, len(p.Items))
	for i, it := range p.Items {
		es[i] = it.Entry
	}
	return es
}

// State is what planning reads from the index.
type State struct {
	Entries  []ctxkeep.Entry
	Sizes    map[ctxkeep.Hash]int64 // stored bytes of every blob row
	Total    int64                  // their sum
	Sessions map[string]ctxkeep.Session
	// TranscriptGone reports whether a session's transcript no longer
	// exists; only asked with Options.Unreferenced.
	TranscriptGone func(session string) bool
}

// Source is what a plan is made from: a store's entries, the stored size
// of its blobs, and when each session was last seen.
type Source interface {
	Entries(ctx context.Context, f ctxkeep.EntryFilter) ([]ctxkeep.Entry, error)
	BlobSizes(ctx context.Context) (map[ctxkeep.Hash]int64, int64, error)
	Sessions(ctx context.Context) (map[string]ctxkeep.Session, error)
}

// Read loads the State of a store.
func Read(ctx context.Context, src Source) (*State, error) {
	es, err := src.Entries(ctx, ctxkeep.EntryFilter{})
	if err != nil {
		return nil, err
	}
	sizes, total, err := src.BlobSizes(ctx)
	if err != nil {
		return nil, err
	}
	seen, err := src.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	return &State{Entries: es, Sizes: sizes, Total: total, Sessions: seen}, nil
}

// Make plans a prune of st under cfg's retention and limits. It is pure:
// the same State, configuration and options give the same plan.
func Make(st *State, cfg *config.Config, opt Options) *Plan {
	p := &planner{st: st, cfg: cfg, opt: opt, refs: map[ctxkeep.Hash]int{}, gone: map[string]bool{},
		plan: &Plan{Before: st.Total, After: st.Total}}
	for _, e := range st.Entries {
		p.refs[e.Hash]++
	}
	p.expired()
	p.overCount()
	p.sessionEnded()
	p.unreferenced()
	p.overSize()
	return p.plan
}

type planner struct {
	st   *State
	cfg  *config.Config
	opt  Options
	refs map[ctxkeep.Hash]int // entries left per blob
	gone map[string]bool      // entry ids already planned
	plan *Plan
}

// take plans the removal of e, unless it is planned already or the cap is
// reached; it reports whether more may be taken.
func (p *planner) take(e ctxkeep.Entry, reason string) bool {
	if p.opt.Limit > 0 && len(p.plan.Items) >= p.opt.Limit {
		return false
	}
	if p.gone[e.ID] {
		return true
	}
	p.gone[e.ID] = true
	p.refs[e.Hash]--
	var frees int64
	if p.refs[e.Hash] == 0 {
		frees = p.st.Sizes[e.Hash]
	}
	p.plan.Items = append(p.plan.Items, Item{Entry: e, Reason: reason, Frees: frees})
	p.plan.After -= frees
	return true
}

func (p *planner) expired() {
	for _, e := range p.st.Entries {
		if e.PinLevel == ctxkeep.PinNone && !p.opt.Now.Before(p.expiry(e)) && !p.take(e, Expired) {
			return
		}
	}
}

// expiry is when an unpinned output may go.
func (p *planner) expiry(e ctxkeep.Entry) time.Time {
	if p.opt.MaxAge > 0 {
		return lastUse(e).Add(p.opt.MaxAge)
	}
	return Expiry(e, p.st.Sessions[e.SessionID].LastSeen, p.cfg.Retention)
}

// Expiry is when an unpinned output may go under the retention rules: once
// its session has been idle for retention.default, and, if it was
// retrieved, retention.retrieved after its last retrieval, else
// retention.never_retrieved after it was stored. An output a session still
// works with stays; one that was looked at again stays longer.
func Expiry(e ctxkeep.Entry, sessionSeen time.Time, r config.Retention) time.Time {
	own := e.CreatedAt.Add(r.NeverRetrieved)
	if e.AccessCount > 0 {
		own = lastUse(e).Add(r.Retrieved)
	}
	idle := later(sessionSeen, e.CreatedAt).Add(r.Default)
	return later(own, idle)
}

func lastUse(e ctxkeep.Entry) time.Time { return later(e.CreatedAt, e.LastAccess) }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (p *planner) overCount() {
	limit := p.cfg.Limits.EntriesPerSession
	bySession := map[string][]ctxkeep.Entry{}
	for _, e := range p.st.Entries {
		bySession[e.SessionID] = append(bySession[e.SessionID], e)
	}
	for _, session := range sortedKeys(bySession) {
		es := bySession[session]
		excess := len(es) - limit
		for _, e := range es { // oldest first
			if excess <= 0 {
				break
			}
			if e.PinLevel != ctxkeep.PinNone {
				continue
			}
			if !p.gone[e.ID] && !p.take(e, OverCount) {
				return
			}
			excess--
		}
	}
}

func (p *planner) sessionEnded() {
	if p.opt.Session == "" {
		return
	}
	for _, e := range p.st.Entries {
		if e.SessionID == p.opt.Session && e.PinLevel == ctxkeep.PinNone && !p.take(e, SessionEnded) {
			return
		}
	}
}

func (p *planner) unreferenced() {
	if !p.opt.Unreferenced || p.st.TranscriptGone == nil {
		return
	}
	gone := map[string]bool{}
	for _, e := range p.st.Entries {
		if e.PinLevel != ctxkeep.PinNone {
			continue
		}
		g, asked := gone[e.SessionID]
		if !asked {
			g = p.st.TranscriptGone(e.SessionID)
			gone[e.SessionID] = g
		}
		if g && !p.take(e, Unreferenced) {
			return
		}
	}
}

// overSize removes, while the store is over its target, unpinned outputs
// (then soft pins, with Options.SoftPins): never retrieved before
// retrieved, oldest first.
func (p *planner) overSize() {
	target := p.opt.MaxBytes
	if target <= 0 {
		limit := p.cfg.Limits.TotalBytes
		if p.plan.After <= limit {
			return
		}
		target = int64(float64(limit) * AutoTarget)
	}
	if p.plan.After <= target {
		return
	}
	p.plan.Target = target
	var order []ctxkeep.Entry
	for _, e := range p.st.Entries {
		if (e.PinLevel == ctxkeep.PinNone || e.PinLevel == ctxkeep.PinSoft && p.opt.SoftPins) && !p.gone[e.ID] {
			order = append(order, e)
		}
	}
	slices.SortStableFunc(order, SizeOrder)
	for _, e := range order {
		if p.plan.After <= target || !p.take(e, OverSize) {
			return
		}
	}
}

// SizeOrder orders outputs for removal when the store is too large:
// unpinned before soft pins, never retrieved before retrieved, least
// recently used first.
func SizeOrder(a, b ctxkeep.Entry) int {
	return cmp.Or(
		cmp.Compare(a.PinLevel, b.PinLevel),
		cmp.Compare(min(a.AccessCount, 1), min(b.AccessCount, 1)),
		lastUse(a).Compare(lastUse(b)),
		cmp.Compare(a.ID, b.ID),
	)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
