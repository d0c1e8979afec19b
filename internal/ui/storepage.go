package ui

import (
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/prune"
)

type storeData struct {
	Dir        string
	Stored     int64 // bytes of blobs on disk
	Content    int64 // characters of the outputs
	Blobs      int
	Entries    int
	Soft, Hard int
	Sessions   int
	IndexBytes int64
	WALBytes   int64
	Retention  config.Retention
	Limits     config.Limits
	Plan       *prune.Plan
	Items      []pruneItem
	Check      *CheckReport
	CanCheck   bool
	CheckErr   string
}

type pruneItem struct {
	prune.Item
	Chip    outputChip
	Session string
}

func (s *Server) storePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	state, err := prune.Read(ctx, s.o.Store)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := &storeData{Dir: s.o.StoreDir, Stored: state.Total, Blobs: len(state.Sizes), Entries: len(state.Entries),
		Sessions: len(state.Sessions), Retention: s.o.Config.Retention, Limits: s.o.Config.Limits, CanCheck: s.o.Check != nil}
	for _, e := range state.Entries {
		d.Content += int64(e.Chars)
		switch e.PinLevel {
		case ctxkeep.PinSoft:
			d.Soft++
		case ctxkeep.PinHard:
			d.Hard++
		}
	}
	if s.o.StoreDir != "" {
		if st, err := os.Stat(filepath.Join(s.o.StoreDir, "index.db")); err == nil {
			d.IndexBytes = st.Size()
		}
		if st, err := os.Stat(filepath.Join(s.o.StoreDir, "index.db-wal")); err == nil {
			d.WALBytes = st.Size()
		}
	}
	// The plan a prune would run now (never --pinned, as the hooks run it);
	// making it changes nothing.
	d.Plan = prune.Make(state, s.o.Config, prune.Options{Now: s.o.Now()})
	for _, it := range d.Plan.Items {
		d.Items = append(d.Items, pruneItem{Item: it, Chip: chipOf(it.Entry), Session: it.Entry.SessionID})
	}
	if r.URL.Query().Get("check") != "" && s.o.Check != nil {
		start := time.Now()
		rep, err := s.o.Check(ctx)
		if err != nil {
			d.CheckErr = shown(err.Error())
		} else {
			rep.Took = time.Since(start).Round(time.Millisecond)
			for i := range rep.Problems {
				rep.Problems[i] = shown(rep.Problems[i])
			}
			d.Check = &rep
		}
	}
	s.render(w, r, "store", "Store", d)
}
