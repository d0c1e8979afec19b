// Package fakeapi is a scripted fake of the Anthropic Messages API, so that
// tests can run the real Claude Code client offline (see internal/clienttest)
// and check what the model would have seen.
//
// The fake records every request in order. Replies to the main conversation
// thread come from a script the test writes; compaction summarisation
// requests get a canned <summary>, and everything else a plain "done".
package fakeapi

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

const (
	messagesPath    = "/v1/messages"
	countTokensPath = "/v1/messages/count_tokens"
	// helloPath is the client's connectivity probe (HEAD), sent unless
	// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set.
	helloPath = "/api/hello"

	defaultSummary = "The user asked for a task and it was completed."
)

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give the client as ANTHROPIC_BASE_URL.
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
		t.Fatalf("fakeapi: %v", err)
	}
	s := &Server{
		URL:     "http://" + ln.Addr().String(),
		logf:    t.Logf,
		summary: defaultSummary,
	}
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

// Respond sets a callback that answers every request not otherwise answered:
// main-thread requests once the script has run out, and subagent requests.
// It is called without the server's lock held, so it may call its methods.
func (s *Server) Respond(fn func(*Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// SetSummary sets the text the fake puts inside <summary> when the client
// asks it to summarise the conversation for compaction.
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
		s.log("fakeapi: reading %s %s: %v", hr.Method, hr.URL.Path, err)
		writeAPIError(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()})
		return
	}
	switch {
	case req.Kind != Other:
		s.serveMessages(w, req)
	case req.Path == countTokensPath:
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": max(1, len(req.Body)/4)})
	case req.Path == helloPath:
		w.WriteHeader(http.StatusOK)
	default:
		s.log("fakeapi: unhandled %s %s", req.Method, req.Path)
		writeAPIError(w, APIError{Status: http.StatusNotFound, Type: "not_found_error", Message: "fakeapi: no endpoint " + req.Path})
	}
}

// record reads and keeps the request.
func (s *Server) record(hr *http.Request) (*Request, error) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		return nil, err
	}
	req := &Request{
		Time:      time.Now(),
		Method:    hr.Method,
		Path:      hr.URL.Path,
		RawQuery:  hr.URL.RawQuery,
		Header:    hr.Header.Clone(),
		Body:      body,
		SessionID: hr.Header.Get("X-Claude-Code-Session-Id"),
		AgentID:   hr.Header.Get("X-Claude-Code-Agent-Id"),
	}
	req.JSON, req.Params = decodeBody(req.Method, req.Path, body)
	req.Kind = classify(req)

	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.requests)
	s.requests = append(s.requests, req)
	return req, nil
}

// decodeBody decodes a JSON object body, and the Params of a Messages
// request. Either is nil when the body does not fit.
func decodeBody(method, path string, body []byte) (map[string]any, *Params) {
	var generic map[string]any
	if json.Unmarshal(body, &generic) != nil {
		return nil, nil
	}
	if method != http.MethodPost || path != messagesPath {
		return generic, nil
	}
	var p Params
	if json.Unmarshal(body, &p) != nil {
		return generic, nil
	}
	return generic, &p
}

func (s *Server) serveMessages(w http.ResponseWriter, req *Request) {
	if req.Params == nil {
		s.log("fakeapi: request %d is not a Messages request: %.300s", req.Seq, req.Body)
		writeAPIError(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "fakeapi: cannot decode the body"})
		return
	}
	reply := s.replyTo(req)
	id := fmt.Sprintf("msg_fake_%03d", req.Seq)
	var err error
	switch {
	case reply.Error != nil:
		err = writeAPIError(w, *reply.Error)
	case req.Params.Stream:
		err = streamMessage(w, id, req.Params.Model, reply)
	default:
		err = writeMessage(w, id, req.Params.Model, reply)
	}
	if err != nil {
		s.log("fakeapi: request %d: writing the reply: %v", req.Seq, err)
	}
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
	case req.Kind == Summary:
		return summaryReply(s.summary), nil
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
