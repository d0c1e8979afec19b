package transcript

import (
	"errors"
	"fmt"
	"slices"
)

// Compaction is one compaction of the main conversation.
type Compaction struct {
	Boundary *Record // the compact_boundary system record
	// Summary is the user record (IsCompactSummary) that replaced what came
	// before: the model's summary, as the model is shown it. Nil when it
	// was not written (yet).
	Summary *Record
}

// Compactions returns the compactions of the main conversation in recs,
// in order; pointers point into recs. A summary belongs to the last
// boundary before it.
func Compactions(recs []Record) []Compaction {
	var out []Compaction
	for i := range recs {
		r := &recs[i]
		if !r.MainThread() {
			continue
		}
		n := len(out)
		switch {
		case r.IsCompactBoundary():
			out = append(out, Compaction{Boundary: r})
		case r.Type == TypeUser && r.IsCompactSummary && n > 0 && out[n-1].Summary == nil:
			out[n-1].Summary = r
		}
	}
	return out
}

// History returns every record of the main conversation in recs, in file
// order and across compactions: everything ever said. The conversation is
// the user, assistant, system and attachment records; progress and
// bookkeeping records are left out.
func History(recs []Record) []Record {
	var out []Record
	for i := range recs {
		if r := &recs[i]; r.MainThread() && r.conversational() {
			out = append(out, *r)
		}
	}
	return out
}

// ErrSegment reports that a compaction's preserved segment is not in the
// records given to Live.
var ErrSegment = errors.New("preserved segment not found")

// Live returns the main conversation as the model sees it now: the last
// compaction's boundary and everything after it, with the records that
// compaction kept verbatim spliced in after the summary. Those records
// stay before the boundary in the file; the boundary's preservedSegment
// names them (claude-code-hooks.md §7.6). Without a compaction, Live is
// History.
//
// If the preserved segment cannot be found in recs, Live still returns the
// view, without it, and an error wrapping ErrSegment.
func Live(recs []Record) ([]Record, error) {
	start := lastBoundary(recs)
	if start < 0 {
		return History(recs), nil
	}
	view := History(recs[start:])
	seg := recs[start].CompactMetadata.segment()
	if seg == nil {
		return view, nil
	}
	kept, err := preserved(recs[:start], seg)
	if err != nil {
		return view, err
	}
	at := slices.IndexFunc(view, func(r Record) bool { return r.UUID == seg.AnchorUUID })
	if at < 0 {
		return view, fmt.Errorf("%w: anchor %s", ErrSegment, seg.AnchorUUID)
	}
	return slices.Insert(view, at+1, kept...), nil
}

func (m *CompactMetadata) segment() *Segment {
	if m == nil || m.PreservedSegment == nil || m.PreservedSegment.TailUUID == "" {
		return nil
	}
	return m.PreservedSegment
}

// lastBoundary returns the index of the last main-thread compact boundary
// in recs, or -1.
func lastBoundary(recs []Record) int {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].MainThread() && recs[i].IsCompactBoundary() {
			return i
		}
	}
	return -1
}

// preserved returns the conversation records of seg: its tail, then
// parent after parent back to its head, in file order again. The chain
// runs through every kind of record, progress records included.
func preserved(recs []Record, seg *Segment) ([]Record, error) {
	byUUID := make(map[string]int, len(recs))
	for i := range recs {
		if recs[i].UUID != "" {
			byUUID[recs[i].UUID] = i
		}
	}
	var chain []Record
	for id := seg.TailUUID; ; id = chain[len(chain)-1].ParentUUID {
		i, ok := byUUID[id]
		if !ok || len(chain) == len(recs) { // missing, or a cycle
			return nil, fmt.Errorf("%w: %q on the way from tail %s to head %s", ErrSegment, id, seg.TailUUID, seg.HeadUUID)
		}
		chain = append(chain, recs[i])
		if id == seg.HeadUUID {
			break
		}
	}
	slices.Reverse(chain)
	return History(chain), nil
}
