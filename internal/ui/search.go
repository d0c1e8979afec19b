package ui

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/search"
)

type searchData struct {
	Q        string
	Project  string
	Session  string
	Team     bool
	HasTeam  bool
	Projects []string
	Results  []resultView
	Searched bool
	Err      string
}

type resultView struct {
	Key     string
	Session string
	Project string
	Agent   string
	Owner   string // the team member whose session it is
	Place   string
	Turn    int
	When    string
	Score   float64
	Summary string
	Snippet []string
	Team    bool
}

// searchLimit is how many results a search shows.
const searchLimit = 30

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	d := &searchData{Q: strings.TrimSpace(q.Get("q")), Project: q.Get("project"), Session: q.Get("session"),
		Team: q.Get("team") != "", HasTeam: s.o.Team != nil}
	if all, err := s.archivedAll(ctx); err == nil {
		for _, a := range all {
			if !slices.Contains(d.Projects, a.Project) {
				d.Projects = append(d.Projects, a.Project)
			}
		}
		slices.Sort(d.Projects)
	}
	if d.Q == "" {
		s.render(w, r, "search", "Search", d)
		return
	}
	d.Searched = true
	query := ctxkeep.ChunkQuery{Text: d.Q, Project: d.Project, Session: d.Session}
	var err error
	if d.Team && s.o.Team != nil {
		err = s.searchTeam(r, d, query)
	} else {
		var res []search.Result
		res, err = search.Search(ctx, s.o.Store, search.Query{Text: d.Q, Project: d.Project, Session: d.Session, Conversation: true, Limit: searchLimit},
			search.Signals{Now: s.o.Now()})
		for _, h := range res {
			d.Results = append(d.Results, resultOf(h, search.Snippet(search.Texts(ctx, s.o.Store, h.Chunk), d.Q)))
		}
	}
	switch {
	case errors.Is(err, ctxkeep.ErrEmptyQuery):
		d.Err = "Nothing to search for: common words (the, of, what…) are left out; add a distinctive one."
	case err != nil:
		d.Err = "The search failed: " + shown(err.Error())
		s.logf("search %q: %v", d.Q, err)
	}
	s.render(w, r, "search", "Search", d)
}

func resultOf(h search.Result, snippet string) resultView {
	v := resultView{Key: h.Key, Session: h.SessionID, Project: h.Project, Agent: h.Agent, Place: recall.Place(h.Chunk), Turn: h.Turn,
		When: dateOf(h.End), Score: h.Score, Summary: shown(h.Summary)}
	for l := range strings.Lines(shown(snippet)) {
		v.Snippet = append(v.Snippet, strings.TrimSuffix(l, "\n"))
	}
	return v
}

func (s *Server) searchTeam(r *http.Request, d *searchData, q ctxkeep.ChunkQuery) error {
	ctx := r.Context()
	team, done, err := s.o.Team(ctx)
	if err != nil {
		return err
	}
	defer done()
	q.Limit = searchLimit * 5
	hits, owners, err := team.SearchTeam(ctx, q)
	if err != nil {
		return err
	}
	ranked, err := search.Rank(ctx, q.Text, hits, search.Signals{Now: s.o.Now()})
	if err != nil {
		return err
	}
	for _, h := range ranked[:min(searchLimit, len(ranked))] {
		v := resultOf(h, search.Snippet(search.Texts(ctx, team, h.Chunk), q.Text))
		v.Owner, v.Team = shown(owners[h.Key]), true
		d.Results = append(d.Results, v)
	}
	return nil
}

type recallData struct {
	Key  string
	Text string
	Err  string
}

// recallFragment is a step recalled in place: its text exactly as
// `ctxkeep recall` prints it, the stored outputs put back, secrets
// redacted.
func (s *Server) recallFragment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.PathValue("key")
	d := recallData{Key: key}
	var b bytes.Buffer
	if r.URL.Query().Get("team") != "" && s.o.Team != nil {
		team, done, err := s.o.Team(ctx)
		if err == nil {
			defer done()
			var c ctxkeep.Chunk
			if c, err = team.Chunk(ctx, key); err == nil {
				err = recall.Write(ctx, &b, team, []ctxkeep.Chunk{c})
			}
		}
		if err != nil {
			d.Err = shown(err.Error())
		}
	} else {
		chunks, err := recall.Chunks(ctx, s.o.Store, key)
		if err == nil {
			err = recall.Write(ctx, &b, s.o.Store, chunks)
		}
		if err != nil {
			d.Err = shown(err.Error())
		}
	}
	d.Text = shown(b.String())
	if d.Err != "" {
		w.WriteHeader(http.StatusNotFound)
	}
	s.fragment(w, "recall", d)
}
