package sqlite

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// Stats returns per-session summaries, most recent first; session filters
// to one session when not empty.
func (db *DB) Stats(ctx context.Context, session string) ([]ctxkeep.SessionStats, error) {
	byID, err := db.sessions(ctx, session)
	if err != nil {
		return nil, err
	}
	q := `SELECT session_id, event, tool, payload_bytes, duration_us, outcome FROM events`
	var args []any
	if session != "" {
		q += ` WHERE session_id = ?`
		args = append(args, session)
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	acc := map[string]*accumulator{}
	for rows.Next() {
		var id, event, tool, outcome string
		var bytes, us int64
		if err := rows.Scan(&id, &event, &tool, &bytes, &us, &outcome); err != nil {
			return nil, err
		}
		a := acc[id]
		if a == nil {
			a = newAccumulator()
			acc[id] = a
		}
		a.add(event, tool, bytes, us, outcome != ctxkeep.OK)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	swaps, err := db.Swaps(ctx, session)
	if err != nil {
		return nil, err
	}
	var out []ctxkeep.SessionStats
	for id, a := range acc {
		s := byID[id]
		s.ID = id
		a.fill(&s)
		s.Swap = swaps[id]
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LastSeen.Equal(out[j].LastSeen) {
			return out[i].LastSeen.After(out[j].LastSeen)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func (db *DB) sessions(ctx context.Context, session string) (map[string]ctxkeep.SessionStats, error) {
	q := `SELECT id, first_seen, last_seen, cwd, transcript_path, client_version FROM sessions`
	var args []any
	if session != "" {
		q += ` WHERE id = ?`
		args = append(args, session)
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ctxkeep.SessionStats{}
	for rows.Next() {
		var s ctxkeep.SessionStats
		var first, last int64
		if err := rows.Scan(&s.ID, &first, &last, &s.Cwd, &s.Transcript, &s.Client); err != nil {
			return nil, err
		}
		s.FirstSeen, s.LastSeen = time.UnixMilli(first).UTC(), time.UnixMilli(last).UTC()
		out[s.ID] = s
	}
	return out, rows.Err()
}

type accumulator struct {
	events    map[string]*ctxkeep.EventStats
	durations map[string][]int64
	tools     map[string]*ctxkeep.ToolStats
}

func newAccumulator() *accumulator {
	return &accumulator{events: map[string]*ctxkeep.EventStats{}, durations: map[string][]int64{}, tools: map[string]*ctxkeep.ToolStats{}}
}

func (a *accumulator) add(event, tool string, bytes, us int64, failed bool) {
	e := a.events[event]
	if e == nil {
		e = &ctxkeep.EventStats{Event: event}
		a.events[event] = e
	}
	e.Count++
	e.Bytes += bytes
	if failed {
		e.Failures++
	}
	a.durations[event] = append(a.durations[event], us)
	if tool != "" {
		t := a.tools[tool]
		if t == nil {
			t = &ctxkeep.ToolStats{Tool: tool}
			a.tools[tool] = t
		}
		t.Count++
		t.Bytes += bytes
	}
}

func (a *accumulator) fill(s *ctxkeep.SessionStats) {
	for name, e := range a.events {
		d := a.durations[name]
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		e.P50us, e.P95us, e.MaxUs = percentile(d, 50), percentile(d, 95), d[len(d)-1]
		s.Events += e.Count
		s.Failures += e.Failures
		s.PayloadBytes += e.Bytes
		s.ByEvent = append(s.ByEvent, *e)
	}
	sort.Slice(s.ByEvent, func(i, j int) bool {
		return s.ByEvent[i].Count > s.ByEvent[j].Count || s.ByEvent[i].Count == s.ByEvent[j].Count && s.ByEvent[i].Event < s.ByEvent[j].Event
	})
	for _, t := range a.tools {
		s.ByTool = append(s.ByTool, *t)
	}
	sort.Slice(s.ByTool, func(i, j int) bool {
		return s.ByTool[i].Count > s.ByTool[j].Count || s.ByTool[i].Count == s.ByTool[j].Count && s.ByTool[i].Tool < s.ByTool[j].Tool
	})
}

// percentile of sorted values, nearest rank.
func percentile(sorted []int64, p int) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

// LastClientVersion returns the client version the most recently seen
// session reported, and when.
func (db *DB) LastClientVersion(ctx context.Context) (string, time.Time, error) {
	var v string
	var ms int64
	err := db.sql.QueryRowContext(ctx, `SELECT client_version, last_seen FROM sessions
		WHERE client_version <> '' ORDER BY last_seen DESC LIMIT 1`).Scan(&v, &ms)
	if err == sql.ErrNoRows {
		return "", time.Time{}, nil
	}
	return v, time.UnixMilli(ms), err
}

// Swaps returns the swap figures of sessions (all when session is "").
func (db *DB) Swaps(ctx context.Context, session string) (map[string]*ctxkeep.SwapStats, error) {
	// An entry is applied or not (its verdict), not checked yet (a hook
	// reply's replacement without a verdict), or printed by ctxkeep itself
	// (no replacement: the wrapper's output, a purge stub). Only the
	// applied and the printed count as kept out.
	q := `SELECT session_id, tool, count(*), sum(chars), sum(view_chars),
		sum(access_count > 0), sum(access_count),
		sum(applied IS 1), sum(applied IS 0), sum(applied IS NULL AND replacement != ''), sum(replacement = ''),
		total(CASE WHEN applied IS 1 OR replacement = '' THEN chars - view_chars END),
		total(CASE WHEN applied IS NULL AND replacement != '' THEN chars - view_chars END) FROM entries`
	var args []any
	if session != "" {
		q += ` WHERE session_id = ?`
		args = append(args, session)
	}
	rows, err := db.sql.QueryContext(ctx, q+` GROUP BY session_id, tool ORDER BY session_id, sum(chars) DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*ctxkeep.SwapStats{}
	for rows.Next() {
		var id string
		var t ctxkeep.ToolSwaps
		var kept, unchecked float64 // total() is a float, exact for any sum of characters we hold
		if err := rows.Scan(&id, &t.Tool, &t.Entries, &t.Chars, &t.ViewChars, &t.Retrieved, &t.Retrievals,
			&t.Applied, &t.NotApplied, &t.Unchecked, &t.Printed, &kept, &unchecked); err != nil {
			return nil, err
		}
		t.KeptOutChars, t.UncheckedChars = int64(kept), int64(unchecked)
		s := out[id]
		if s == nil {
			s = &ctxkeep.SwapStats{}
			out[id] = s
		}
		s.Entries += t.Entries
		s.Chars += t.Chars
		s.ViewChars += t.ViewChars
		s.Retrieved += t.Retrieved
		s.Retrievals += t.Retrievals
		s.Applied += t.Applied
		s.NotApplied += t.NotApplied
		s.Unchecked += t.Unchecked
		s.Printed += t.Printed
		s.KeptOutChars += t.KeptOutChars
		s.UncheckedChars += t.UncheckedChars
		s.ByTool = append(s.ByTool, t)
	}
	return out, rows.Err()
}
