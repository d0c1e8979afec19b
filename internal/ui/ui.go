// Package ui is `ctxkeep ui`: a local web server that shows every session,
// what filled its context, what ctxkeep kept out and what came back, live.
// It is an entry point, like hook, cli and mcp: it takes the narrow
// interfaces it reads (Store, Team) and the policies' own functions
// through Options, and never opens a store itself.
//
// Pages are rendered on the server with html/template (contextual
// escaping: every string from a transcript or a store is text), the CSS
// and the little JavaScript are embedded, nothing is loaded from anywhere
// else (a Content-Security-Policy says so to the browser). Safe by default
// (security.go): a token on every request, the Host header checked
// against the address it listens on, state-changing requests as POSTs
// checked against Origin and Sec-Fetch-Site and carrying a CSRF token,
// and every text shown goes through the redaction pass and
// text.Printable.
package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// Store is what the pages read, and the pin buttons write: the local
// store (entries, blobs and the archive) and the aggregates its lists
// need.
type Store interface {
	ctxkeep.Store
	ctxkeep.SessionList
	// Swaps is what swap stored of sessions, as the transcripts show it
	// was kept out (all sessions when session is "").
	Swaps(ctx context.Context, session string) (map[string]*ctxkeep.SwapStats, error)
	// BlobSizes and Sessions are what a prune plan is made from
	// (prune.Source, with Entries).
	BlobSizes(ctx context.Context) (map[ctxkeep.Hash]int64, int64, error)
	Sessions(ctx context.Context) (map[string]ctxkeep.Session, error)
}

// Team is the team archive (PostgreSQL), when one is configured: searched
// and recalled as the user's role may.
type Team interface {
	// SearchTeam is SearchChunks with the role that pushed each hit's
	// session, by chunk key.
	SearchTeam(ctx context.Context, q ctxkeep.ChunkQuery) (hits []ctxkeep.ChunkHit, owners map[string]string, err error)
	// Chunk returns a chunk of the team archive by key.
	Chunk(ctx context.Context, key string) (ctxkeep.Chunk, error)
	ctxkeep.OutputStore
}

// CheckReport is what the store's integrity check found, as the Store
// page shows it.
type CheckReport struct {
	OK       bool
	Blobs    int      // read and hashed
	Rows     int      // blob rows in the index
	Problems []string // each problem, one line
	Garbage  string   // what prune will collect, "" when nothing
	Took     time.Duration
}

// Options are what the server is built from.
type Options struct {
	Store Store
	// Team opens the team archive for one request; nil when none is
	// configured.
	Team func(ctx context.Context) (Team, func(), error)
	// Check runs the store's full check (every blob read and hashed);
	// nil when not offered.
	Check  func(ctx context.Context) (CheckReport, error)
	Config *config.Config
	// Limits are the client's thresholds for a session: its client
	// (ctxkeep.AgentClaudeCode, AgentCodex), model, the window the client
	// recorded (Codex), and the largest context it reached.
	Limits func(agent, model string, window, peak int64) watch.Limits
	// StateDir is ctxkeep's state folder: pins waiting for outputs, the
	// statusline's record of the window the client reported.
	StateDir string
	// StoreDir and BlobDir are shown on the Store page.
	StoreDir string
	Now      func() time.Time
	Version  string
	// Log receives one line per problem a request met (the page says
	// only that it failed).
	Log io.Writer
	// Poll is how often a live page looks for new steps (default 1 s).
	// Nothing is polled while no page is open.
	Poll time.Duration
}

// Server is the web UI.
type Server struct {
	o     Options
	token string // the access token: in the printed URL, then a cookie
	csrf  string // the token forms carry on state-changing requests
	addr  string // host:port listened on
	loop  bool   // listening on loopback only
	mux   *http.ServeMux
	cross *http.CrossOriginProtection
	pages *pages
	scans *scanCache
	lists listCache
	headc headCache
	// closing is closed when the server stops: live pages end.
	closing chan struct{}
	stop    sync.Once
}

// New makes the server. Its token is fresh: each `ctxkeep ui` prints its
// own.
func New(o Options) (*Server, error) {
	if o.Store == nil || o.Config == nil || o.Limits == nil {
		return nil, errors.New("ui: Store, Config and Limits are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	s := &Server{o: o, token: randomHex(24), csrf: randomHex(24), scans: newScanCache(), closing: make(chan struct{}),
		cross: http.NewCrossOriginProtection()}
	s.pages = newPages(s.csrf)
	s.routes()
	return s, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on the systems Go supports
	}
	return hex.EncodeToString(b)
}

// Listen opens addr ("127.0.0.1:0" picks a free port) and says whether it
// is loopback only: a server reachable from other machines warns.
func Listen(addr string) (net.Listener, bool, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, false, fmt.Errorf("bad address %q: want HOST:PORT, such as 127.0.0.1:8765", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, false, fmt.Errorf("bad port in %q", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return ln, isLoopback(host), nil
}

// isLoopback reports whether host names the loopback interface only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the address to open, with the token: the first line `ctxkeep ui`
// prints. A server listening on every address (0.0.0.0, ::, which Go
// listens on for both IPv4 and IPv6) is opened on 127.0.0.1: no browser
// opens 0.0.0.0 as a page, and the Host check takes loopback for it.
func (s *Server) URL() string {
	addr := s.addr
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + addr + "/?token=" + s.token
}

// Token is the access token.
func (s *Server) Token() string { return s.token }

// Handler serves ln's requests; Serve calls it. Bind must have been
// called.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// Bind sets the address the server answers for: its Host check and its
// URL.
func (s *Server) Bind(ln net.Listener) {
	s.addr = ln.Addr().String()
	host, _, _ := net.SplitHostPort(s.addr)
	s.loop = isLoopback(host)
}

// Serve serves on ln until ctx is done.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.Bind(ln)
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	go s.warm(s.closing)
	select {
	case err := <-done:
		s.Close()
		return err
	case <-ctx.Done():
		s.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	}
}

// Close ends the live pages.
func (s *Server) Close() { s.stop.Do(func() { close(s.closing) }) }

// ctx is a context that ends when the server stops.
func (s *Server) ctx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-s.closing; cancel() }()
	return ctx
}

// logf records a problem a request met.
func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.o.Log, "ctxkeep ui: "+format+"\n", args...)
}
