// Package fakeresponses is a scripted fake of the OpenAI Responses API
// (POST /v1/responses, streamed as server-sent events), so that tests can
// run the real Codex CLI offline (see internal/codextest) and check what the
// model would have seen. It is internal/fakeapi's sibling for the other
// agent.
//
// The fake records every request in order. Replies to the main thread come
// from a script the test writes; compaction requests (Codex compacts with an
// ordinary /responses request when the provider is not OpenAI's,
// codex-hooks.md §2) get a canned summary; anything else gets "done".
package fakeresponses

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// responsesPath is the one endpoint Codex calls (codex-hooks.md §2).
const responsesPath = "/v1/responses"

// DefaultSummary is what a compaction request is answered with until
// SetSummary changes it.
const DefaultSummary = "The user asked for a task and it was worked on."

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the provider's base_url, http://127.0.0.1:PORT/v1.
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
		t.Fatalf("fakeresponses: %v", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", logf: t.Logf, summary: DefaultSummary}
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

// Script queues replies for the next main-thread requests, in order.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Respond sets a callback that answers main-thread requests once the script
// has run out, and subagent requests. It is called without the server's
// lock held, so it may call the server's methods.
func (s *Server) Respond(fn func(*Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// SetSummary sets the text a compaction request is answered with.
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

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	req, err := s.record(hr)
	if err != nil {
		s.log("fakeresponses: reading %s %s: %v", hr.Method, hr.URL.Path, err)
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Kind == Other {
		s.log("fakeresponses: unhandled %s %s", req.Method, req.Path)
		writeError(w, http.StatusNotFound, "fakeresponses: no endpoint "+req.Path)
		return
	}
	reply := s.replyTo(req)
	id := fmt.Sprintf("resp_fake_%03d", req.Seq)
	if reply.Error != "" {
		err = writeError(w, http.StatusBadRequest, reply.Error)
	} else {
		err = stream(w, id, reply)
	}
	if err != nil {
		s.log("fakeresponses: request %d: writing the reply: %v", req.Seq, err)
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
	if hr.Method == http.MethodPost && hr.URL.Path == responsesPath {
		var p Params
		if json.Unmarshal(body, &p) == nil {
			req.Params = &p
		}
	}
	req.Kind = classify(req)

	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.requests)
	s.requests = append(s.requests, req)
	return req, nil
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
	case req.Kind == Compaction:
		return Say(s.summary).WithUsage(Usage{InputTokens: 100, OutputTokens: 50}), nil
	case req.Kind == Main && len(s.script) > 0:
		next := s.script[0]
		s.script = s.script[1:]
		return next, nil
	case s.respond != nil:
		return Reply{}, s.respond
	}
	return Done(), nil
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
