package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// sessionRow is one session of the Sessions page.
type sessionRow struct {
	ctxkeep.ArchivedSession
	Title      string
	Peak       int64 // the largest context read, 0 when its transcript was not read yet
	PeakExact  bool  // read from the whole transcript (else the archive's last figure)
	PeakPct    float64
	KeptTokens int64 // what the transcript shows was kept out: applied replacements and printed outputs
	KeptOut    int
	Stored     int // outputs stored
	Pins       int
	Unchecked  int
	NotApplied int
}

type sessionsData struct {
	Rows     []sessionRow // this page's
	Matched  int          // sessions the filter keeps
	Page     int
	First    int
	Last     int
	Next     int // the next page, 0 when none
	Prev     int
	Total    int // sessions before filtering
	Projects []string
	Filter   sessionFilter
	Kept     int64 // tokens kept out, of the rows shown
	Stored   int
}

type sessionFilter struct {
	Project, Client, From, To string
}

// filterOf reads the filter of the Sessions page's form.
func filterOf(r *http.Request) sessionFilter {
	q := r.URL.Query()
	return sessionFilter{Project: q.Get("project"), Client: q.Get("client"), From: q.Get("from"), To: q.Get("to")}
}

func (f sessionFilter) keep(s ctxkeep.ArchivedSession) bool {
	if f.Project != "" && s.Project != f.Project {
		return false
	}
	if f.Client != "" && s.Agent != f.Client {
		return false
	}
	day := localTime(s.End).Format("2006-01-02")
	if f.From != "" && day < f.From {
		return false
	}
	return f.To == "" || day <= f.To
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	d, err := s.sessionsData(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "sessions", "Sessions", d)
}

func (s *Server) sessionsData(r *http.Request) (*sessionsData, error) {
	ctx := r.Context()
	l, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	all, swaps, pins := l.sorted, l.swaps, l.pins
	d := &sessionsData{Total: len(all), Filter: filterOf(r)}
	projects := map[string]bool{}
	for _, a := range all {
		if !projects[a.Project] {
			projects[a.Project] = true
			d.Projects = append(d.Projects, a.Project)
		}
		if !d.Filter.keep(a) {
			continue
		}
		row := sessionRow{ArchivedSession: a, Title: shown(a.Prompt), Pins: pins[a.ID]}
		if row.Title == "" {
			row.Title = "(no prompt archived)"
		}
		row.Peak = a.Usage.Tokens
		if p, ok := s.scans.peak(a.Transcript); ok && a.Transcript != "" {
			row.Peak, row.PeakExact = max(p, a.Usage.Tokens), true
		}
		if row.Peak > 0 {
			l := s.o.Limits(a.Agent, a.Usage.Model, a.Usage.Window, row.Peak)
			row.PeakPct = l.OfWindow(row.Peak)
		}
		if sw := swaps[a.ID]; sw != nil {
			row.Stored, row.KeptOut, row.KeptTokens = sw.Entries, sw.KeptOut(), (sw.KeptOutChars+3)/4
			row.Unchecked, row.NotApplied = sw.Unchecked, sw.NotApplied
		}
		d.Kept += row.KeptTokens
		d.Stored += row.Stored
		d.Rows = append(d.Rows, row)
	}
	slices.SortFunc(d.Projects, strings.Compare)
	d.Matched = len(d.Rows)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	d.Page = min(max(page, 1), max(1, (len(d.Rows)+pageRows-1)/pageRows))
	from := (d.Page - 1) * pageRows
	d.Rows = d.Rows[from:min(from+pageRows, len(d.Rows))]
	d.First, d.Last = from+1, from+len(d.Rows)
	if d.Last < d.Matched {
		d.Next = d.Page + 1
	}
	if d.Page > 1 {
		d.Prev = d.Page - 1
	}
	return d, nil
}

// pageRows is how many sessions one page lists; the filters find the rest.
const pageRows = 200

// pageLink is the Sessions page's URL for another page, with its filter.
func (f sessionFilter) PageLink(page int) string {
	q := url.Values{}
	for k, v := range map[string]string{"project": f.Project, "client": f.Client, "from": f.From, "to": f.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	q.Set("page", strconv.Itoa(page))
	return "/?" + q.Encode()
}

// list is what the Sessions page lists, kept while the index does not
// change (its files' sizes and times, as the statusline tells): the
// archived sessions, what swap kept out of each, their pins. When the
// index changed, only the sessions whose archive cursor moved are summed
// up again.
type listCache struct {
	mu       sync.Mutex
	stamp    string
	cursors  map[string]ctxkeep.ArchiveCursor
	sessions map[string]ctxkeep.ArchivedSession
	view
}

type view struct {
	sorted []ctxkeep.ArchivedSession
	swaps  map[string]*ctxkeep.SwapStats
	pins   map[string]int
}

// list returns the figures of every archived session, up to date.
func (s *Server) list(ctx context.Context) (view, error) {
	c := &s.lists
	stamp := s.indexStamp()
	c.mu.Lock()
	defer c.mu.Unlock()
	if stamp != "" && stamp == c.stamp {
		return c.view, nil
	}
	curs, err := s.o.Store.ArchiveCursors(ctx)
	if err != nil {
		return view{}, err
	}
	var changed []string
	for id, cur := range curs {
		if old, ok := c.cursors[id]; !ok || old != cur {
			changed = append(changed, id)
		}
	}
	switch {
	case c.sessions == nil || len(changed) > 500:
		all, err := s.o.Store.ArchivedSessions(ctx)
		if err != nil {
			return view{}, err
		}
		c.sessions = make(map[string]ctxkeep.ArchivedSession, len(all))
		for _, a := range all {
			c.sessions[a.ID] = a
		}
	case len(changed) > 0:
		some, err := s.o.Store.ArchivedSessions(ctx, changed...)
		if err != nil {
			return view{}, err
		}
		for _, a := range some {
			c.sessions[a.ID] = a
		}
	}
	for id := range c.cursors {
		if _, ok := curs[id]; !ok {
			delete(c.sessions, id)
		}
	}
	swaps, err := s.o.Store.Swaps(ctx, "")
	if err != nil {
		return view{}, err
	}
	pinned, err := s.o.Store.Entries(ctx, ctxkeep.EntryFilter{Pinned: true})
	if err != nil {
		return view{}, err
	}
	v := view{swaps: swaps, pins: map[string]int{}}
	for _, e := range pinned {
		v.pins[e.SessionID]++
	}
	for _, a := range c.sessions {
		v.sorted = append(v.sorted, a)
	}
	slices.SortFunc(v.sorted, func(a, b ctxkeep.ArchivedSession) int {
		if c := b.End.Compare(a.End); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	c.stamp, c.cursors, c.view = stamp, curs, v
	return v, nil
}

// archivedAll is every archived session, latest first.
func (s *Server) archivedAll(ctx context.Context) ([]ctxkeep.ArchivedSession, error) {
	v, err := s.list(ctx)
	return v.sorted, err
}

// indexStamp identifies the index's state by its files' sizes and times:
// every commit changes the write-ahead log, every checkpoint the database.
// "" when the store's folder is not known (then nothing is kept).
func (s *Server) indexStamp() string {
	if s.o.StoreDir == "" {
		return ""
	}
	var b strings.Builder
	for _, name := range []string{"index.db", "index.db-wal"} {
		if st, err := os.Stat(filepath.Join(s.o.StoreDir, name)); err == nil {
			fmt.Fprintf(&b, "%d.%d;", st.Size(), st.ModTime().UnixNano())
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}

// warm reads the transcripts of the archived sessions once, newest
// first, so that the Sessions page shows every session's peak; then it
// stops. It reads one transcript at a time.
func (s *Server) warm(done <-chan struct{}) {
	all, err := s.archivedAll(s.ctx())
	if err != nil {
		return
	}
	for _, a := range all {
		select {
		case <-done:
			return
		default:
		}
		if a.Transcript == "" {
			continue
		}
		if sc, err := s.scans.get(a.Transcript, a.Agent, s.readLimits()); err == nil {
			sc.mu.Unlock()
		}
		time.Sleep(time.Millisecond) // leave the machine to the hooks
	}
}
