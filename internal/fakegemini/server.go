// Package fakegemini is a scripted fake of the Gemini API (v1beta), so that
// tests can run the real Gemini CLI offline (see internal/geminitest) and
// check what the model would have seen. It is the sibling of
// internal/fakeapi and internal/fakeresponses for the third agent.
//
// It answers the two calls the CLI makes with an API key
// (gemini-cli-hooks.md, "Pointing the CLI at a fake API"):
//
//   - POST /v1beta/models/MODEL:streamGenerateContent?alt=sse, every turn
//     of the agent, streamed as server-sent events: replies come from a
//     script the test writes (text, function calls, usageMetadata);
//   - POST /v1beta/models/MODEL:generateContent, the compression
//     summariser and its probe (a canned <state_snapshot>), and any other
//     one-shot call ("done").
//
// countTokens gets a fixed count. Every request is recorded, in order.
package fakegemini

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultSummary is the state snapshot the compression summariser answers
// with until SetSummary changes it.
const DefaultSummary = "<state_snapshot>\nFAKE-SUMMARY: the user asked for a task and it was worked on.\n</state_snapshot>"

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API's base URL, http://127.0.0.1:PORT: the CLI's
	// GOOGLE_GEMINI_BASE_URL.
	URL string

	http *http.Server
	logf func(format string, args ...any)

	mu       sync.Mutex
	closed   bool
	requests []*Request
	script   []Reply
	respond  func(*Request) Reply
	summary  string
}

// Start starts a fake on a random port of 127.0.0.1. It is closed when the
// test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakegemini: %v", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), logf: t.Logf, summary: DefaultSummary}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln) // returns http.ErrServerClosed once closed
	t.Cleanup(s.Close)
	return s
}

// Close stops the server, letting replies in flight finish for a few seconds.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.http.Shutdown(ctx) != nil {
		s.http.Close()
	}
}

// Script queues replies for the next turns of the agent (streamed
// requests), in order.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Respond sets a callback that answers the agent's turns once the script
// has run out. It is called without the server's lock held.
func (s *Server) Respond(fn func(*Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// SetSummary sets what the compression summariser and its probe answer:
// a <state_snapshot> element, as the CLI asks for.
func (s *Server) SetSummary(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summary = text
}

// Remaining returns how many scripted replies have not been used yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// RequestsOf returns the requests of one kind, in arrival order.
func (s *Server) RequestsOf(kind Kind) []*Request {
	var of []*Request
	for _, r := range s.Requests() {
		if r.Kind == kind {
			of = append(of, r)
		}
	}
	return of
}

// Last returns the latest request of a kind, or nil if there is none.
func (s *Server) Last(kind Kind) *Request {
	of := s.RequestsOf(kind)
	if len(of) == 0 {
		return nil
	}
	return of[len(of)-1]
}

// After returns the first request of a kind that came after request seq,
// or nil.
func (s *Server) After(seq int, kind Kind) *Request {
	for _, r := range s.Requests() {
		if r.Seq > seq && r.Kind == kind {
			return r
		}
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	req, err := s.record(hr)
	if err != nil {
		s.log("fakegemini: reading %s %s: %v", hr.Method, hr.URL.Path, err)
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	switch req.Kind {
	case Other:
		s.log("fakegemini: unhandled %s %s", req.Method, req.Path)
		writeError(w, http.StatusNotFound, "fakegemini: no endpoint "+req.Path)
		return
	case CountTokens:
		writeJSON(w, map[string]int{"totalTokens": 100})
		return
	}
	reply := s.replyTo(req)
	switch {
	case reply.Error != "":
		err = writeError(w, http.StatusBadRequest, reply.Error)
	case req.Stream:
		err = stream(w, reply)
	default:
		err = writeJSON(w, reply.response())
	}
	if err != nil {
		s.log("fakegemini: request %d: writing the reply: %v", req.Seq, err)
	}
}

// record reads and keeps the request.
func (s *Server) record(hr *http.Request) (*Request, error) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		return nil, err
	}
	req := &Request{
		Time: time.Now(), Method: hr.Method, Path: hr.URL.Path,
		Header: hr.Header.Clone(), Body: body,
	}
	if hr.Method == http.MethodPost {
		var p struct {
			Contents []Content `json:"contents"`
		}
		if json.Unmarshal(body, &p) == nil {
			req.Contents = p.Contents
		}
	}
	req.Kind, req.Stream = classify(req)

	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.requests)
	s.requests = append(s.requests, req)
	return req, nil
}

// classify tells the calls apart by their method (the part of the path
// after ':') and, for generateContent, by the last user text.
func classify(r *Request) (Kind, bool) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Path, "/v1beta/models/") {
		return Other, false
	}
	_, method, _ := strings.Cut(r.Path, ":")
	switch method {
	case "streamGenerateContent":
		return Main, true
	case "countTokens":
		return CountTokens, false
	case "generateContent":
		last := r.lastUserText()
		// The summariser asks for a new snapshot ("Generate a new
		// <state_snapshot>…"), or, when the history holds one, for it
		// updated ("…generate the updated <state_snapshot>"); its probe
		// asks it to look again.
		switch {
		case strings.Contains(last, "Critically evaluate the <state_snapshot>"):
			return Probe, false
		case strings.Contains(last, "<state_snapshot>"):
			return Summary, false
		}
		return OneShot, false
	}
	return Other, false
}

func (s *Server) replyTo(req *Request) Reply {
	reply, respond := s.scripted(req)
	if respond != nil {
		return respond(req)
	}
	return reply
}

// scripted picks the reply under the lock. When the Respond callback should
// answer, it is returned instead, to be called without the lock.
func (s *Server) scripted(req *Request) (Reply, func(*Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case req.Kind == Summary || req.Kind == Probe:
		return Say(s.summary).WithUsage(Usage{Prompt: 100, Candidates: 50}), nil
	case req.Kind == Main && len(s.script) > 0:
		next := s.script[0]
		s.script = s.script[1:]
		return next, nil
	case req.Kind == Main && s.respond != nil:
		return Reply{}, s.respond
	}
	return Say("done"), nil
}

// stream writes a reply as the API streams one: a server-sent event per
// part, the last with the finish reason and the usage.
func stream(w http.ResponseWriter, r Reply) error {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	chunks := r.chunks()
	for _, c := range chunks {
		data, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", data); err != nil {
			return err
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, message string) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	return json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": message, "status": "INVALID_ARGUMENT"}})
}

// log logs through the test, unless the server is closed: a test must not
// log after it has finished.
func (s *Server) log(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.logf(format, args...)
	}
}
