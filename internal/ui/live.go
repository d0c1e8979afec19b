package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
)

// A session page stays live over Server-Sent Events: while it is open,
// the server looks at the session every Poll (one stat of the transcript,
// one indexed query of the archive past the last step shown) and sends
// what changed: the new steps (rendered on the server, as the page's
// own), and the gauge and chart when the context moved. Nothing is polled
// while no page is open, so an idle server uses no CPU.

// heartbeat keeps an idle stream open through proxies and tells the
// browser the server is there.
const heartbeat = 15 * time.Second

func (s *Server) livePage(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		refuse(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	ctx := r.Context()
	a, err := s.archived(ctx, r.PathValue("id"))
	if err != nil {
		refuse(w, http.StatusNotFound, err.Error())
		return
	}
	turn, step := parsePlace(r.URL.Query().Get("after"))
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	flusher.Flush()

	st := &liveState{turn: turn, step: step, tokens: -1}
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		if err := s.liveLook(r, w, a, st); err != nil {
			s.logf("live %s: %v", a.ID, err)
		}
		flusher.Flush()
		select {
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		case <-beat.C:
			fmt.Fprint(w, ": beat\n\n")
		case <-tick.C:
		}
	}
}

// liveState is what a live page has been sent.
type liveState struct {
	turn, step int
	tokens     int64
	points     int
}

func parsePlace(s string) (int, int) {
	t, st, _ := strings.Cut(s, ".")
	turn, _ := strconv.Atoi(t)
	step, _ := strconv.Atoi(st)
	return turn, step
}

// liveLook sends what changed since the last look.
func (s *Server) liveLook(r *http.Request, w http.ResponseWriter, a ctxkeep.ArchivedSession, st *liveState) error {
	ctx := r.Context()
	chunks, err := s.o.Store.TurnRange(ctx, a.ID, max(st.turn, 1), math.MaxInt32)
	if err != nil {
		return err
	}
	var fresh []ctxkeep.Chunk
	for _, c := range chunks {
		if c.Turn > st.turn || c.Turn == st.turn && c.Step > st.step {
			fresh = append(fresh, c)
		}
	}
	if len(fresh) > 0 {
		entries, err := s.o.Store.Entries(ctx, ctxkeep.EntryFilter{Session: a.ID})
		if err != nil {
			return err
		}
		byID := make(map[string]ctxkeep.Entry, len(entries))
		for _, e := range entries {
			byID[e.ID] = e
		}
		for _, c := range fresh {
			v := stepOf(c, byID, map[string]bool{})
			var b bytes.Buffer
			if err := s.pages.t["parts"].ExecuteTemplate(&b, "step", v); err != nil {
				return err
			}
			prompt := ""
			if c.Prompt != "" {
				prompt = shown(c.Prompt)
			}
			if err := event(w, "step", map[string]any{"turn": c.Turn, "step": c.Step, "prompt": prompt, "html": b.String()}); err != nil {
				return err
			}
			st.turn, st.step = c.Turn, c.Step
		}
	}
	if a.Transcript == "" {
		return nil
	}
	sc, err := s.scans.get(a.Transcript, a.Agent, s.readLimits())
	if err != nil {
		return nil // the page says why already
	}
	usage, peak, window := sc.usage, sc.peak, sc.window
	var tl breakdown.Timeline
	points := sc.responses()
	if points != st.points {
		entries, _ := s.o.Store.Entries(ctx, ctxkeep.EntryFilter{Session: a.ID})
		var swaps []breakdown.Swap
		for _, e := range entries {
			if e.AgentID == "" {
				swaps = append(swaps, breakdown.SwapOf(e))
			}
		}
		tl = sc.timeline(swaps)
	}
	sc.mu.Unlock()
	if usage.Tokens == st.tokens && points == st.points {
		return nil
	}
	l := s.o.Limits(a.Agent, usage.Model, max(window, usage.Window), max(peak, a.Usage.Tokens))
	g := gaugeOf(usage.Tokens, l)
	var b bytes.Buffer
	if err := s.pages.t["parts"].ExecuteTemplate(&b, "gauge", g); err != nil {
		return err
	}
	msg := map[string]any{"tokens": usage.Tokens, "html": b.String()}
	if points != st.points && len(tl.Points) > 0 {
		c := &chartData{ChartView: breakdown.NewChart(tl, l)}
		pts, _ := json.Marshal(breakdown.Readout(tl))
		c.Readout = string(pts)
		var cb bytes.Buffer
		if err := s.pages.t["parts"].ExecuteTemplate(&cb, "chart", c); err != nil {
			return err
		}
		msg["chart"] = cb.String()
	}
	st.tokens, st.points = usage.Tokens, points
	return event(w, "usage", msg)
}

// event writes one Server-Sent Event with a JSON payload (one line: JSON
// escapes newlines).
func event(w http.ResponseWriter, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
	return err
}
