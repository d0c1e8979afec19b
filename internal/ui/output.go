package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/breakdown"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/prune"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// pageLines is how many lines of an original one page shows.
const pageLines = 2000

type outputData struct {
	E         ctxkeep.Entry
	Chip      outputChip
	Exit      string
	Lines     []lineView
	Total     int
	From, To  int // the lines shown, 1-based, inclusive
	Prev      int // the first line of the previous page, 0 when none
	Next      int // the first line of the next page, 0 when none
	Grep      string
	Context   int
	Failures  bool
	FailLines int
	Matches   int
	Err       string
	Shifted   bool // a multi-line secret was redacted: line numbers after it moved
	Binary    bool
	Expiry    string
	Verdict   string
	View      viewData // what the model saw, rendered with the page (no script needed)
}

type lineView struct {
	N     int
	Text  string
	Fail  bool
	Match bool
	Gap   bool // lines left out before this one
}

func (s *Server) entry(ctx context.Context, id string) (ctxkeep.Entry, error) {
	return s.o.Store.Entry(ctx, id)
}

func (s *Server) outputPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	e, err := s.entry(ctx, r.PathValue("id"))
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		s.notFound(w, r, err.Error())
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data, err := s.o.Store.Open(ctx, e.Hash)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	d := &outputData{E: e, Chip: chipOf(e), Grep: q.Get("grep"), Failures: q.Get("failures") != ""}
	d.E.Input, d.E.Summary, d.E.PinReason, d.E.Verdict = shown(e.Input), shown(e.Summary), shown(e.PinReason), shown(e.Verdict)
	if e.ExitCode != nil {
		d.Exit = strconv.Itoa(*e.ExitCode)
	}
	d.Context, _ = strconv.Atoi(q.Get("C"))
	d.Context = min(max(d.Context, 0), 50)
	from, _ := strconv.Atoi(q.Get("from"))
	d.Expiry = s.expiry(ctx, e)
	d.View = s.viewOf(ctx, e)
	d.lines(string(data), e.Tool, max(from, 1))
	s.render(w, r, "output", e.Tool+" output "+e.ID, d)
}

// expiry says when prune may take the output, as its pin stands.
func (s *Server) expiry(ctx context.Context, e ctxkeep.Entry) string {
	switch e.PinLevel {
	case ctxkeep.PinHard:
		return "pinned hard: prune never takes it"
	case ctxkeep.PinSoft:
		return "pinned soft: kept past retention; only an explicit `ctxkeep prune --pinned` over the size limit takes it, after every unpinned output"
	}
	seen := e.CreatedAt
	if ss, err := s.o.Store.Sessions(ctx); err == nil {
		seen = ss[e.SessionID].LastSeen
	}
	at := prune.Expiry(e, seen, s.o.Config.Retention)
	now := s.o.Now()
	if at.Before(now) {
		return "unpinned: past its retention since " + dateOf(at) + "; the next prune takes it"
	}
	return "unpinned: the retention rules keep it until " + dateOf(at) + " (" + strings.TrimSuffix(since(at, now), " ago") + " from now); a pin keeps it longer"
}

// lines fills the lines to show: a page of the whole, or the lines grep
// matched, or the failures, each with its number as `ctxkeep show`
// numbers them.
func (d *outputData) lines(raw, tool string, from int) {
	if swap.IsBinary(raw) {
		d.Binary = true
		return
	}
	rawLines := strings.SplitAfter(raw, "\n")
	if n := len(rawLines); n > 0 && rawLines[n-1] == "" {
		rawLines = rawLines[:n-1]
	}
	txt := shown(raw)
	all := strings.SplitAfter(txt, "\n")
	if n := len(all); n > 0 && all[n-1] == "" {
		all = all[:n-1]
	}
	d.Shifted = len(all) != len(rawLines)
	d.Total = len(all)
	fail := map[int]bool{}
	if swap.HasFailures(tool) {
		fs, _ := swap.Failures(txt, -1)
		for _, f := range fs {
			for _, l := range f.Lines() {
				fail[l.N] = true
			}
		}
	}
	d.FailLines = len(fail)
	var keep func(n int) bool
	match := map[int]bool{}
	switch {
	case d.Grep != "":
		re, err := regexp.Compile(d.Grep)
		if err != nil {
			d.Err = "bad regular expression: " + err.Error()
			return
		}
		for i, l := range all {
			if re.MatchString(strings.TrimSuffix(l, "\n")) {
				match[i+1] = true
			}
		}
		d.Matches = len(match)
		keep = near(match, d.Context)
	case d.Failures:
		keep = near(fail, d.Context)
	}
	if keep != nil {
		last := 0
		for n := 1; n <= len(all) && len(d.Lines) < pageLines; n++ {
			if keep(n) {
				d.Lines = append(d.Lines, lineView{N: n, Text: strings.TrimSuffix(all[n-1], "\n"), Fail: fail[n], Match: match[n], Gap: last > 0 && n > last+1})
				last = n
			}
		}
		return
	}
	d.From = min(from, max(len(all), 1))
	d.To = min(d.From+pageLines-1, len(all))
	for n := d.From; n <= d.To; n++ {
		d.Lines = append(d.Lines, lineView{N: n, Text: strings.TrimSuffix(all[n-1], "\n"), Fail: fail[n]})
	}
	if d.From > 1 {
		d.Prev = max(1, d.From-pageLines)
	}
	if d.To < len(all) {
		d.Next = d.To + 1
	}
}

// near keeps the lines of set and context lines around each.
func near(set map[int]bool, context int) func(int) bool {
	return func(n int) bool {
		for i := n - context; i <= n+context; i++ {
			if set[i] {
				return true
			}
		}
		return false
	}
}

// viewData is the view the model saw instead of an output.
type viewData struct {
	ID    string
	Text  string
	Found bool
	Note  string
}

// viewFragment is what the model saw in place of an output, as the
// transcript holds it, for the session page to show in place.
func (s *Server) viewFragment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	e, err := s.entry(ctx, r.PathValue("id"))
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		s.fragment(w, "view", viewData{ID: r.PathValue("id"), Note: "no such stored output"})
		return
	}
	s.fragment(w, "view", s.viewOf(ctx, e))
}

// viewOf finds what the transcript holds in place of e's output.
func (s *Server) viewOf(ctx context.Context, e ctxkeep.Entry) viewData {
	v := viewData{ID: e.ID}
	path := s.transcriptOf(ctx, e.SessionID)
	if path == "" || e.ToolUseID == "" {
		v.Note = "the transcript of this output's session is not known"
		return v
	}
	agent := ctxkeep.AgentClaudeCode
	if a, err := s.archived(ctx, e.SessionID); err == nil {
		agent = a.Agent
	}
	if agent == ctxkeep.AgentGemini {
		return s.chatView(v, path, e)
	}
	if agent == ctxkeep.AgentCodex {
		txt, ok, err := rolloutOutput(path, e.ToolUseID, s.o.Config.Limits.TranscriptLineBytes, s.o.Config.Limits.TranscriptReadBytes)
		switch {
		case err != nil:
			v.Note = "the rollout could not be read: " + shown(err.Error())
		case !ok:
			v.Note = "the rollout holds no output for this call (yet)"
		default:
			v.Text, v.Found = shown(txt), true
			v.Note = statusNote(e)
		}
		return v
	}
	if e.AgentID != "" {
		path = proof.SubagentTranscript(path, e.AgentID)
	}
	sc, err := s.scans.get(path, agent, s.readLimits())
	if err != nil {
		v.Note = "the transcript could not be read: " + shown(err.Error())
		return v
	}
	txt, ok := sc.resultText(e.ToolUseID, int(s.o.Config.Limits.TranscriptLineBytes))
	sc.mu.Unlock()
	if !ok {
		v.Note = "the transcript holds no result for this call (yet)"
		return v
	}
	v.Text, v.Found = shown(txt), true
	v.Note = statusNote(e)
	return v
}

// statusNote says what the proof of effect found, when the view shown is
// not the replacement the model saw.
func statusNote(e ctxkeep.Entry) string {
	switch breakdown.StatusOf(e) {
	case breakdown.NotApplied:
		return "the client did not apply the replacement: the model saw the output whole"
	case breakdown.Unchecked:
		return "not checked yet (the check runs at the end of each turn)"
	}
	return ""
}

// chatView is the view a Gemini CLI chat holds in place of e's output: the
// AfterTool deny's reason, which the chat keeps as the call's error. The
// hook's payload names no call, so the entry's call id is ctxkeep's own:
// the view is found by its exact text, as the proof of effect finds it
// (proof.ScanChat).
func (s *Server) chatView(v viewData, path string, e ctxkeep.Entry) viewData {
	if e.Replacement == "" {
		v.Note = "ctxkeep gave the model no view of this output"
		return v
	}
	txt, ok, err := lastLine(path, []byte(gemini.ViewPrefix), s.o.Config.Limits.TranscriptLineBytes, s.o.Config.Limits.TranscriptReadBytes,
		func(line []byte) (string, bool) {
			for _, got := range gemini.CallResults(line) {
				if proof.Sum(got) == e.Replacement {
					return got, true
				}
			}
			return "", false
		})
	switch {
	case err != nil:
		v.Note = "the chat could not be read: " + shown(err.Error())
	case !ok && breakdown.StatusOf(e) == breakdown.NotApplied:
		v.Note = statusNote(e)
	case !ok:
		v.Note = "the chat holds no view of this output (yet)"
	default:
		v.Text, v.Found = shown(txt), true
		v.Note = statusNote(e)
	}
	return v
}

// rolloutOutput is what a Codex rollout holds as a call's output, as the
// model got it (a hook's replacement when it took effect: codex.CallOutput),
// the last such line.
func rolloutOutput(path, callID string, maxLine, maxRead int64) (string, bool, error) {
	return lastLine(path, []byte(callID), maxLine, maxRead, func(line []byte) (string, bool) {
		if cid, text, ok := codex.CallOutput(line); ok && cid == callID {
			return text, true
		}
		return "", false
	})
}

// lastLine is what pick finds in the last line of the file at path that
// it finds something in. Only lines holding needle are decoded; lines
// over maxLine are skipped, and at most maxRead bytes are read.
func lastLine(path string, needle []byte, maxLine, maxRead int64, pick func(line []byte) (string, bool)) (string, bool, error) {
	f, _, err := fsx.OpenRegular(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	var r io.Reader = f
	if maxRead > 0 {
		r = io.LimitReader(f, maxRead)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	out, found := "", false
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := bytes.Clone(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if maxLine <= 0 || int64(len(long)) <= maxLine {
					long = append(long, line...)
				}
			}
			line = long
			if maxLine > 0 && int64(len(line)) > maxLine {
				line = nil
			}
		}
		if len(line) > 0 && bytes.Contains(line, needle) {
			if text, ok := pick(line); ok {
				out, found = text, true
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, found, nil
			}
			return out, found, err
		}
	}
}

// transcriptOf is where a session's transcript is: the archive's cursor,
// else what the hooks recorded.
func (s *Server) transcriptOf(ctx context.Context, session string) string {
	if c, ok, err := s.o.Store.Cursor(ctx, session); err == nil && ok && c.Transcript != "" {
		return c.Transcript
	}
	if ss, err := s.o.Store.Sessions(ctx); err == nil {
		return ss[session].Transcript
	}
	return ""
}

// pin sets an output's pin (the only write the UI makes).
func (s *Server) pin(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		refuse(w, http.StatusBadRequest, "bad form")
		return
	}
	level, err := ctxkeep.ParsePinLevel(r.PostForm.Get("level"))
	if err != nil {
		refuse(w, http.StatusBadRequest, err.Error())
		return
	}
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	if len(reason) > 500 {
		reason = reason[:500]
	}
	if reason == "" && level != ctxkeep.PinNone {
		reason = "pinned in ctxkeep ui on " + s.o.Now().Format(time.DateOnly)
	}
	e, err := s.o.Store.SetPin(ctx, r.PostForm.Get("id"), level, reason)
	if errors.Is(err, ctxkeep.ErrNotFound) || errors.Is(err, ctxkeep.ErrAmbiguous) {
		refuse(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if r.Header.Get("X-CSRF-Token") != "" { // the pages' script: it updates the page itself
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"id": e.ID, "level": e.PinLevel.String()})
		return
	}
	http.Redirect(w, r, localPath(r.PostForm.Get("back")), http.StatusSeeOther)
}
