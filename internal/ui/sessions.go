package ui

import (
	"net/http"
	"slices"
	"strings"
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
	Rows     []sessionRow
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
	all, err := s.o.Store.ArchivedSessions(ctx)
	if err != nil {
		return nil, err
	}
	swaps, err := s.o.Store.Swaps(ctx, "")
	if err != nil {
		return nil, err
	}
	pinned, err := s.o.Store.Entries(ctx, ctxkeep.EntryFilter{Pinned: true})
	if err != nil {
		return nil, err
	}
	pins := map[string]int{}
	for _, e := range pinned {
		pins[e.SessionID]++
	}
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
	return d, nil
}

// warm reads the transcripts of the archived sessions once, newest
// first, so that the Sessions page shows every session's peak; then it
// stops. It reads one transcript at a time.
func (s *Server) warm(done <-chan struct{}) {
	all, err := s.o.Store.ArchivedSessions(s.ctx())
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
