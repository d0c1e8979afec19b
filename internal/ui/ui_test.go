package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// fakeListener names the address a test server answers for.
type fakeListener struct{ net.Listener }

func (fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8765} }

// newServer is a server over a fresh local store, bound to
// 127.0.0.1:8765 without listening.
func newServer(tb testing.TB, dir string) (*Server, Store) {
	tb.Helper()
	st := storetest.Local(tb, dir)
	cfg, _, err := config.Load(config.Files{}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(Options{Store: st, Config: cfg, StoreDir: dir, Now: time.Now, Version: "test",
		Limits: func(_, model string, window, peak int64) watch.Limits {
			return watch.LimitsFor(cfg, model, window, peak, watch.ClientEnv{})
		}})
	if err != nil {
		tb.Fatal(err)
	}
	s.Bind(fakeListener{})
	return s, st
}

// get asks the server for path as the browser would, with its cookie.
func get(s *Server, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "http://127.0.0.1:8765"+path, nil)
	r.AddCookie(&http.Cookie{Name: s.cookieName(), Value: s.token})
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w
}

func TestHostAllowed(t *testing.T) {
	s := &Server{addr: "127.0.0.1:8765", loop: true}
	for host, want := range map[string]bool{
		"127.0.0.1:8765": true, "localhost:8765": true, "LOCALHOST:8765": true, "[::1]:8765": true, "127.0.0.2:8765": true,
		"127.0.0.1:8766": false, "127.0.0.1": false, "attacker.example:8765": false, "localhost.attacker.example:8765": false,
		"192.168.1.5:8765": false, "": false, "127.0.0.1:8765:1": false,
	} {
		if got := s.hostAllowed(host); got != want {
			t.Errorf("loopback server, Host %q: allowed %t, want %t", host, got, want)
		}
	}
	all := &Server{addr: "0.0.0.0:8765"}
	for host, want := range map[string]bool{"192.168.1.5:8765": true, "127.0.0.1:8765": true, "box.lan:8765": false, "192.168.1.5:80": false} {
		if got := all.hostAllowed(host); got != want {
			t.Errorf("server on every interface, Host %q: allowed %t, want %t", host, got, want)
		}
	}
	one := &Server{addr: "10.0.0.7:8765"}
	for host, want := range map[string]bool{"10.0.0.7:8765": true, "10.0.0.8:8765": false, "localhost:8765": true} {
		if got := one.hostAllowed(host); got != want {
			t.Errorf("server on one address, Host %q: allowed %t, want %t", host, got, want)
		}
	}
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/s/abc?x=1": "/s/abc?x=1", "": "/", "https://attacker.example/": "/", "//attacker.example/x": "/",
		`/\attacker.example`: "/", "javascript:alert(1)": "/", "s/abc": "/",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The token in a URL becomes a cookie and leaves the URL; the pages say
// nothing without it; every response carries the policy.
func TestTokenAndHeaders(t *testing.T) {
	s, _ := newServer(t, t.TempDir())
	r := httptest.NewRequest("GET", "http://127.0.0.1:8765/now?token="+s.token+"&x=1", nil)
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/now?x=1" {
		t.Fatalf("?token= answers %d to %q; want a redirect to /now?x=1", w.Code, w.Header().Get("Location"))
	}
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].Value != s.token || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie = %+v", c)
	}
	if got := get(s, "/"); got.Code != http.StatusOK || !strings.Contains(got.Body.String(), "No session archived yet") {
		t.Fatalf("with the cookie: %d\n%s", got.Code, got.Body.String())
	}
	csp := get(s, "/").Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	w = httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "http://127.0.0.1:8765/static/ui.css", nil))
	if w.Code != http.StatusUnauthorized {
		t.Errorf("a stylesheet without the token: %d", w.Code)
	}
}

// Every text from the store goes through the redaction pass and
// text.Printable; html/template escapes the rest.
func TestPagesRedactAndEscape(t *testing.T) {
	dir := t.TempDir()
	s, st := newServer(t, dir)
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("A1b2C3d4", 5)
	body := "→ Bash: echo " + secret + "\n← result: <script>alert(1)</script> \x1b[31mred\x1b[0m"
	c := ctxkeep.Chunk{Key: "k000000000ab", SessionID: "sess-1", Project: "/p/demo", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentClaudeCode,
		Turn: 1, Step: 1, Start: time.Now(), End: time.Now(), Prompt: "deploy with " + secret + " <b>now</b>", Summary: "ran <img src=x onerror=alert(1)>", Body: body}
	if _, err := st.SaveChunks(ctx, "sess-1", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{Turn: 1, Step: 1}); err != nil {
		t.Fatal(err)
	}
	e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: "aaaaaaaaaaaa", SessionID: "sess-1", Tool: "Bash", Input: "echo " + secret, Chars: 100, Lines: 2},
		[]byte("token "+secret+"\n<script>x</script>\x1b[2J\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/s/sess-1", "/o/" + e.ID, "/search?q=deploy", "/recall/k000000000ab", "/now", "/store"} {
		w := get(s, path)
		page := w.Body.String()
		if w.Code != http.StatusOK {
			t.Errorf("%s: %d\n%s", path, w.Code, page)
			continue
		}
		for _, bad := range []string{secret, "<script>alert", "<script>x", "<img src=x", "\x1b"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s shows %q", path, bad)
			}
		}
	}
	if !strings.Contains(get(s, "/o/"+e.ID).Body.String(), "[redacted:github-token]") {
		t.Errorf("the output page does not say what it redacted")
	}
}

// A pin is a POST with the CSRF token; without it, or from another site,
// or as a GET, nothing changes.
func TestPinNeedsPOSTAndCSRF(t *testing.T) {
	s, st := newServer(t, t.TempDir())
	ctx := context.Background()
	e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: "bbbbbbbbbbbb", SessionID: "s", Tool: "Bash", Chars: 10}, []byte("0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	var where string // the last answer's Location
	post := func(form string, edit func(*http.Request)) int {
		r := httptest.NewRequest("POST", "http://127.0.0.1:8765/pin", strings.NewReader(form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: s.cookieName(), Value: s.token})
		if edit != nil {
			edit(r)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		where = w.Header().Get("Location")
		return w.Code
	}
	level := func() ctxkeep.PinLevel {
		got, _ := st.Entry(ctx, e.ID)
		return got.PinLevel
	}
	if code := post("id="+e.ID+"&level=hard", nil); code != http.StatusForbidden || level() != ctxkeep.PinNone {
		t.Errorf("without the CSRF token: %d, pin %s", code, level())
	}
	if code := post("id="+e.ID+"&level=hard&csrf="+s.csrf, func(r *http.Request) {
		r.Header.Set("Sec-Fetch-Site", "cross-site")
		r.Header.Set("Origin", "http://attacker.example")
	}); code != http.StatusForbidden || level() != ctxkeep.PinNone {
		t.Errorf("from another site: %d, pin %s", code, level())
	}
	if code := post("id="+e.ID+"&level=hard&csrf="+s.csrf+"&back=https://attacker.example/", func(r *http.Request) {
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		r.Header.Set("Origin", "http://127.0.0.1:8765")
	}); code != http.StatusSeeOther || level() != ctxkeep.PinHard || where != "/" {
		t.Errorf("from its own page, back to another site: %d to %q, pin %s", code, where, level())
	}
	// Without the pages' script, a form goes back to the page it was on
	// (the script sets it), else to the output's page: never elsewhere.
	page := get(s, "/o/"+e.ID).Body.String()
	if !strings.Contains(page, `name="back" value="/o/`+e.ID+`"`) {
		t.Errorf("the pin form's default way back is not the output's page")
	}
	if code := post("id="+e.ID+"&level=none&csrf="+s.csrf+"&back=/s/x%3Fturn=3", func(r *http.Request) {
		r.Header.Set("Sec-Fetch-Site", "same-origin")
	}); code != http.StatusSeeOther || level() != ctxkeep.PinNone || where != "/s/x?turn=3" {
		t.Errorf("unpinning from a session page: %d to %q, pin %s", code, where, level())
	}
	if code := post("id="+e.ID+"&level=hard&csrf="+s.csrf, nil); code != http.StatusSeeOther || level() != ctxkeep.PinHard {
		t.Errorf("pinning again: %d, pin %s", code, level())
	}
	if w := get(s, "/pin?id="+e.ID+"&level=none"); w.Code != http.StatusMethodNotAllowed || level() != ctxkeep.PinHard {
		t.Errorf("a GET: %d, pin %s", w.Code, level())
	}
}

// The live stream sends the steps archived after the page's last one.
func TestLiveSendsNewSteps(t *testing.T) {
	s, st := newServer(t, t.TempDir())
	s.o.Poll = 20 * time.Millisecond
	ctx := context.Background()
	step := func(turn, n int, prompt string) ctxkeep.Chunk {
		return ctxkeep.Chunk{Key: fmt.Sprintf("k%011d", turn*100+n), SessionID: "live", Project: "/p", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentClaudeCode,
			Turn: turn, Step: n, Start: time.Now(), End: time.Now(), Prompt: prompt, Summary: fmt.Sprintf("step %d.%d", turn, n), Body: "b"}
	}
	if _, err := st.SaveChunks(ctx, "live", []ctxkeep.Chunk{step(1, 1, "first")}, ctxkeep.ArchiveCursor{Turn: 1, Step: 1}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.mux)
	defer srv.Close()
	// No deadline: the step is waited for as it arrives (a stream that
	// never sends it is caught by go test's -timeout).
	req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/s/live/live?after=1.1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	if _, err := st.SaveChunks(ctx, "live", []ctxkeep.Chunk{step(2, 1, "a <b>second</b> prompt")}, ctxkeep.ArchiveCursor{Turn: 2, Step: 1}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	var got strings.Builder
	for !strings.Contains(got.String(), "event: step") {
		n, err := resp.Body.Read(buf)
		if err != nil {
			t.Fatalf("reading the stream: %v (so far %q)", err, got.String())
		}
		got.Write(buf[:n])
	}
	_, data, _ := strings.Cut(got.String(), "event: step\ndata: ")
	data, _, _ = strings.Cut(data, "\n")
	var m struct {
		Turn   int    `json:"turn"`
		Prompt string `json:"prompt"`
		HTML   string `json:"html"`
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatal(err)
	}
	if m.Turn != 2 || m.Prompt != "a <b>second</b> prompt" || !strings.Contains(m.HTML, "step 2.1") || strings.Contains(got.String(), "step 1.1") {
		t.Errorf("event = %+v", m)
	}
}

// The Sessions page lists every session of both clients, latest first,
// with its figures (steps, compactions, tokens kept out as the transcript
// shows it, outputs stored, pins), and its filters keep the sessions of
// a project, a client, a range of days.
func TestSessionsFiltersAndFigures(t *testing.T) {
	s, st := newServer(t, t.TempDir())
	ctx := context.Background()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 12, 0, 0, 0, tz) }
	add := func(id, project, agent string, d, steps int, compactions int) {
		var cs []ctxkeep.Chunk
		for n := range steps {
			kind := ctxkeep.KindStep
			if n < compactions {
				kind = ctxkeep.KindSummary
			}
			cs = append(cs, ctxkeep.Chunk{Key: fmt.Sprintf("k%s%03d", id[:8], n), SessionID: id, Project: project, Kind: kind, Agent: agent,
				Turn: 1 + n, Step: 1, Start: day(d), End: day(d).Add(time.Duration(n) * time.Minute), Prompt: "prompt of " + id, Summary: "s", Body: "b"})
		}
		if _, err := st.SaveChunks(ctx, id, cs, ctxkeep.ArchiveCursor{Turn: steps, Step: 1}); err != nil {
			t.Fatal(err)
		}
	}
	add("aaaaaaaa-alpha-claude", "/p/alpha", ctxkeep.AgentClaudeCode, 1, 3, 1)
	add("bbbbbbbb-beta-codex", "/p/beta", ctxkeep.AgentCodex, 5, 7, 0)
	add("cccccccc-beta-claude", "/p/beta", ctxkeep.AgentClaudeCode, 10, 2, 0)
	// Three outputs of the first session: one the transcript shows kept
	// out (4,000 characters, ~1,000 tokens), one the client did not apply,
	// one pinned and not checked yet.
	for i, chars := range []int{5_000, 9_000, 7_000} {
		id := fmt.Sprintf("e%011d", i)
		if _, err := st.PutEntry(ctx, ctxkeep.Entry{ID: id, SessionID: "aaaaaaaa-alpha-claude", Tool: "Bash", ToolUseID: fmt.Sprintf("toolu_%d", i),
			Chars: chars, ViewChars: 1_000, Replacement: strings.Repeat("ab", 32)}, []byte(strings.Repeat("x", chars))); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.(ctxkeep.Local).SaveProof(ctx, "aaaaaaaa-alpha-claude", "/t.jsonl", 10, 1, []ctxkeep.Verdict{{ID: "e00000000000", Applied: true},
		{ID: "e00000000001", Applied: false, Reason: "the original"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetPin(ctx, "e00000000002", ctxkeep.PinSoft, "test"); err != nil {
		t.Fatal(err)
	}

	rows := func(query string) []string {
		t.Helper()
		w := get(s, "/"+query)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d", query, w.Code)
		}
		var ids []string
		for _, part := range strings.Split(w.Body.String(), `<td class="title"><a href="/s/`)[1:] {
			ids = append(ids, part[:strings.IndexByte(part, '"')])
		}
		return ids
	}
	for query, want := range map[string][]string{
		"":                               {"cccccccc-beta-claude", "bbbbbbbb-beta-codex", "aaaaaaaa-alpha-claude"},
		"?client=codex":                  {"bbbbbbbb-beta-codex"},
		"?client=claude-code":            {"cccccccc-beta-claude", "aaaaaaaa-alpha-claude"},
		"?project=%2Fp%2Fbeta":           {"cccccccc-beta-claude", "bbbbbbbb-beta-codex"},
		"?from=2026-03-02&to=2026-03-09": {"bbbbbbbb-beta-codex"},
		"?from=2026-03-05":               {"cccccccc-beta-claude", "bbbbbbbb-beta-codex"},
		"?project=%2Fp%2Fbeta&client=codex&to=2026-03-04": nil,
	} {
		if got := rows(query); !slices.Equal(got, want) {
			t.Errorf("/%s lists %v, want %v", query, got, want)
		}
	}

	// The first session's row: 2 steps and 1 compaction (its summary), ~1k tokens kept out
	// (the applied one only), 3 stored, 1 pin, 1 not applied, 1 unchecked.
	page := get(s, "/?project=%2Fp%2Falpha").Body.String()
	cells := regexp.MustCompile(`<td class="n">\s*([^<]*)<`).FindAllStringSubmatch(page, -1)
	var nums []string
	for _, c := range cells {
		nums = append(nums, strings.TrimSpace(c[1]))
	}
	if len(nums) < 2 || nums[0] != "2" || nums[1] != "1" {
		t.Errorf("steps and compactions: %v", nums)
	}
	for _, want := range []string{"<b>~1k</b>", "1 applied · 1 unchecked · 1 not applied", `<span class="pin-count">1</span>`, `<td class="n">3</td>`,
		`<span class="badge claude-code">Claude Code</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the row of the first session lacks %q", want)
		}
	}
	if p := get(s, "/?client=codex").Body.String(); !strings.Contains(p, `<span class="badge codex">Codex</span>`) {
		t.Errorf("a Codex session is not marked as one")
	}
}

// An output's page shows the exact original by line numbers, its failure
// lines marked, and grep with context lines; a bad expression says so.
func TestOutputLinesFailuresGrep(t *testing.T) {
	s, st := newServer(t, t.TempDir())
	ctx := context.Background()
	var out strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&out, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", i, i)
	}
	out.WriteString("=== RUN   TestBroken\n    broken_test.go:12: got 3, want 4\n--- FAIL: TestBroken (0.00s)\nFAIL\nFAIL\texample.com/pkg\t0.01s\n")
	e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: "cccccccccccc", SessionID: "s", Tool: "Bash", Input: "go test ./...", Chars: out.Len(), Lines: 85},
		[]byte(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	whole := get(s, "/o/"+e.ID).Body.String()
	if !strings.Contains(whole, `<span class="l" id="L1"><a class="n" href="#L1">1</a>=== RUN   TestCase1`) {
		t.Errorf("the original is not shown by numbered lines:\n%.2000s", whole)
	}
	if !strings.Contains(whole, `<span class="l fail" id="L83"><a class="n" href="#L83">83</a>--- FAIL: TestBroken`) {
		t.Errorf("the failing test's line is not marked")
	}
	if strings.Contains(whole, `class="l fail" id="L2"`) {
		t.Errorf("a passing line is marked as a failure")
	}
	grep := get(s, "/o/"+e.ID+"?grep=TestCase3[0-9]&C=1").Body.String()
	if !strings.Contains(grep, "20 matching lines") || !strings.Contains(grep, `id="L58"`) || strings.Contains(grep, `id="L10"`) ||
		!strings.Contains(grep, `<span class="l match" id="L59">`) || !strings.Contains(grep, `<span class="l" id="L58">`) {
		t.Errorf("grep TestCase3[0-9] with one line of context:\n%.3000s", grep)
	}
	if bad := get(s, "/o/"+e.ID+"?grep=(").Body.String(); !strings.Contains(bad, `class="err"`) {
		t.Errorf("a bad expression is not reported")
	}
	if fails := get(s, "/o/"+e.ID+"?failures=1").Body.String(); !strings.Contains(fails, "--- FAIL: TestBroken") || strings.Contains(fails, "TestCase7 ") {
		t.Errorf("the failures view:\n%.2000s", fails)
	}
}

// fakeTeam is a team archive over a second local store: every hit is
// bob's.
type fakeTeam struct{ Store }

func (f fakeTeam) SearchTeam(ctx context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, map[string]string, error) {
	hits, err := f.SearchChunks(ctx, q)
	owners := map[string]string{}
	for _, h := range hits {
		owners[h.Key] = "bob"
	}
	return hits, owners, err
}

// With a team archive configured, Search offers it: its results name
// whose session each is, and a result recalls in place from the team
// archive, redacted; without the box ticked, only the local archive is
// searched.
func TestSearchTeamArchive(t *testing.T) {
	s, st := newServer(t, t.TempDir())
	team := storetest.Local(t, t.TempDir())
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("Z9y8X7w6", 5)
	save := func(st Store, session, key, text string) {
		c := ctxkeep.Chunk{Key: key, SessionID: session, Project: "/p/shared", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentClaudeCode,
			Turn: 1, Step: 1, Start: time.Now(), End: time.Now(), Prompt: text, Summary: text, Body: "→ Bash: deploy " + secret + "\n" + text}
		if _, err := st.SaveChunks(ctx, session, []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{Turn: 1, Step: 1}); err != nil {
			t.Fatal(err)
		}
	}
	save(st, "mine", "k00000000001", "the flaky reconciler test, mine")
	save(team, "bobs", "k00000000002", "the flaky reconciler test, bob's")
	opened := 0
	s.o.Team = func(context.Context) (Team, func(), error) { opened++; return fakeTeam{team}, func() {}, nil }

	local := get(s, "/search?q=flaky+reconciler").Body.String()
	if !strings.Contains(local, `name="team"`) || !strings.Contains(local, "k00000000001") || strings.Contains(local, "k00000000002") || opened != 0 {
		t.Errorf("the local search (team opened %d times):\n%.3000s", opened, local)
	}
	remote := get(s, "/search?q=flaky+reconciler&team=1").Body.String()
	if !strings.Contains(remote, "k00000000002") || strings.Contains(remote, "k00000000001") || !strings.Contains(remote, " · bob ") ||
		!strings.Contains(remote, `data-src="/recall/k00000000002?team=1"`) || !strings.Contains(remote, "in the team archive") || opened != 1 {
		t.Errorf("the team search:\n%.3000s", remote)
	}
	w := get(s, "/recall/k00000000002?team=1")
	if body := w.Body.String(); w.Code != http.StatusOK || !strings.Contains(body, "reconciler test, bob") || strings.Contains(body, secret) {
		t.Errorf("the team recall: %d\n%s", w.Code, body)
	}
	for _, page := range []string{local, remote} {
		if strings.Contains(page, secret) {
			t.Errorf("a search page shows the secret")
		}
	}
}

// A search result links to its step even in a session longer than a
// page: the link names the turn, and the page shows the turns up to it.
func TestSearchLinkReachesOldSteps(t *testing.T) {
	s, st := newServer(t, t.TempDir())
	ctx := context.Background()
	var cs []ctxkeep.Chunk
	for turn := 1; turn <= stepWindow+200; turn++ {
		body := "→ Bash: make\n← result: ok"
		if turn == 3 {
			body = "→ Bash: make\n← result: the quarantined zeppelin test failed"
		}
		cs = append(cs, ctxkeep.Chunk{Key: fmt.Sprintf("k%011d", turn), SessionID: "long", Project: "/p", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentClaudeCode,
			Turn: turn, Step: 1, Start: time.Now(), End: time.Now(), Prompt: fmt.Sprintf("prompt %d", turn), Summary: "s", Body: body})
	}
	if _, err := st.SaveChunks(ctx, "long", cs, ctxkeep.ArchiveCursor{Turn: len(cs), Step: 1}); err != nil {
		t.Fatal(err)
	}
	const key = "k00000000003"
	res := get(s, "/search?q=quarantined+zeppelin").Body.String()
	link := `href="/s/long?turn=3#` + key + `"`
	if !strings.Contains(res, link) {
		t.Fatalf("the result does not link to its turn (%s):\n%.2000s", link, res)
	}
	if latest := get(s, "/s/long").Body.String(); strings.Contains(latest, `id="`+key+`"`) {
		t.Errorf("the latest steps reach back to turn 3: the test shows nothing")
	}
	if page := get(s, "/s/long?turn=3").Body.String(); !strings.Contains(page, `id="`+key+`"`) || !strings.Contains(page, "the latest turns") {
		t.Errorf("the page of turn 3 lacks its step")
	}
	if page := get(s, "/s/long?turn=1150").Body.String(); !strings.Contains(page, `id="k00000001150"`) || strings.Contains(page, "the latest turns") {
		t.Errorf("a recent turn is not on the latest page")
	}
}

// A Codex output's view is what its rollout holds as the call's output:
// the replacement the model got, redacted like the rest.
func TestCodexView(t *testing.T) {
	dir := t.TempDir()
	s, st := newServer(t, dir)
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("Q1w2E3r4", 5)
	rollout := filepath.Join(dir, "rollout-2026-11-26T10-00-00-codex.jsonl")
	var b strings.Builder
	for _, l := range []map[string]any{
		{"timestamp": "2026-11-26T10:00:01Z", "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "shell", "call_id": "call_9", "arguments": `{"command":["make"]}`}},
		{"timestamp": "2026-11-26T10:00:02Z", "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "call_8", "output": "another call's output"}},
		{"timestamp": "2026-11-26T10:00:03Z", "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "call_9",
			"output": "[ctxkeep] make: 4,000 lines kept out of the context, token " + secret + " <b>x</b>"}},
	} {
		line, _ := json.Marshal(l)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(rollout, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c := ctxkeep.Chunk{Key: "k0000000c0de", SessionID: "codex-s", Project: "/p", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentCodex,
		Turn: 1, Step: 1, Start: time.Now(), End: time.Now(), Prompt: "build it", Summary: "s", Body: "b"}
	if _, err := st.SaveChunks(ctx, "codex-s", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{Transcript: rollout, Turn: 1, Step: 1}); err != nil {
		t.Fatal(err)
	}
	e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: "dddddddddddd", SessionID: "codex-s", ToolUseID: "call_9", Tool: "shell", Input: "make", Chars: 90_000, ViewChars: 80},
		[]byte("the whole output"))
	if err != nil {
		t.Fatal(err)
	}
	w := get(s, "/o/"+e.ID+"/view")
	view := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(view, `<pre class="viewtext">[ctxkeep] make: 4,000 lines kept out`) || strings.Contains(view, "another call") ||
		strings.Contains(view, secret) || strings.Contains(view, "<b>x") {
		t.Errorf("the Codex view: %d\n%s", w.Code, view)
	}
	if w := get(s, "/o/"+e.ID+"/view"); !strings.Contains(w.Body.String(), "[redacted:github-token]") {
		t.Errorf("the view does not say what it redacted:\n%s", w.Body.String())
	}
	// The output's page holds the view itself: it needs no script.
	if page := get(s, "/o/"+e.ID).Body.String(); !strings.Contains(page, `<pre class="viewtext">[ctxkeep] make: 4,000 lines kept out`) {
		t.Errorf("the output's page does not show the view without its script")
	}
}

// A session page shows each compaction with what ctxkeep's restore block
// put back after it, and the warnings ctxkeep gave, from the transcript,
// redacted; the gauge is the context after the last response.
func TestSessionCompactionsRestoreWarnings(t *testing.T) {
	dir := t.TempDir()
	s, st := newServer(t, dir)
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("R5t6Y7u8", 5)
	path := filepath.Join(dir, "restored.jsonl")
	asst := func(uuid, at string, tokens int) map[string]any {
		return map[string]any{"type": "assistant", "uuid": uuid, "sessionId": "restored", "timestamp": at, "isSidechain": false,
			"message": map[string]any{"id": "msg_" + uuid, "role": "assistant", "model": "claude-opus-4-6", "content": []any{map[string]any{"type": "text", "text": "ok"}},
				"usage": map[string]any{"input_tokens": 4, "cache_read_input_tokens": tokens - 4, "output_tokens": 10}}}
	}
	attach := func(uuid, at, text string) map[string]any {
		return map[string]any{"type": "attachment", "uuid": uuid, "sessionId": "restored", "timestamp": at, "isSidechain": false,
			"attachment": map[string]any{"type": "hook_additional_context"}, "rendered": "<system-reminder>" + text + "</system-reminder>", "renderedRole": "system"}
	}
	var b strings.Builder
	for _, rec := range []map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": "restored", "timestamp": "2026-11-20T10:00:00Z", "isSidechain": false, "message": map[string]any{"role": "user", "content": "refactor the billing module"}},
		asst("a1", "2026-11-20T10:00:05Z", 120_000),
		attach("w1", "2026-11-20T10:00:06Z", "ctxkeep: the context is at 150k of 200k tokens: compaction is near.\n\nMore text."),
		asst("a2", "2026-11-20T10:00:10Z", 160_000),
		{"type": "system", "subtype": "compact_boundary", "uuid": "c1", "sessionId": "restored", "timestamp": "2026-11-20T10:01:00Z", "isSidechain": false,
			"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 167_000}},
		attach("r1", "2026-11-20T10:01:01Z", "ctxkeep restored this session's working state after compaction: the plan, the decision to bill on exact counts, token "+secret),
		asst("a3", "2026-11-20T10:01:10Z", 31_000),
	} {
		line, _ := json.Marshal(rec)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c := ctxkeep.Chunk{Key: "k00000000r01", SessionID: "restored", Project: "/p", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentClaudeCode,
		Turn: 1, Step: 1, Start: time.Now(), End: time.Now(), Prompt: "refactor the billing module", Summary: "s", Body: "b"}
	if _, err := st.SaveChunks(ctx, "restored", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{Transcript: path, Turn: 1, Step: 1}); err != nil {
		t.Fatal(err)
	}
	page := get(s, "/s/restored").Body.String()
	for _, want := range []string{
		"Compactions and what came back", "<b>#1</b> auto after response 2", `<span class="tag ok">restore block</span>`,
		"ctxkeep restored this session&#39;s working state after compaction: the plan", "[redacted:github-token]",
		"Warnings ctxkeep gave", "after response 1</span> ctxkeep: the context is at 150k of 200k tokens: compaction is near.",
		`<div class="big">31k`, `class="chart"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the session page lacks %q", want)
		}
	}
	if strings.Contains(page, secret) || strings.Contains(page, "More text.") {
		t.Errorf("the page shows the secret, or the warning's other paragraphs")
	}
	// The Sessions list: the peak read from the transcript (160k, before
	// the compaction: 80 % of the window, marked), not the last figure.
	list := get(s, "/").Body.String()
	if !strings.Contains(list, `<rect class="fill hot" width="80.0"`) || !strings.Contains(list, "<span>160k</span>") {
		t.Errorf("the list's peak context:\n%s", list)
	}
	if t.Failed() {
		t.Logf("%s", page)
	}
}

// Now, for a Codex session: the gauge, the largest tool outputs the
// model's context still holds (none from before the last compaction),
// the one ctxkeep stored linked, and what ctxkeep kept out with its pin
// buttons.
func TestNowCodex(t *testing.T) {
	dir := t.TempDir()
	s, st := newServer(t, dir)
	ctx := context.Background()
	rollout := filepath.Join(dir, "rollout-2026-11-26T10-00-00-now.jsonl")
	var b strings.Builder
	write := func(kind string, payload map[string]any) {
		line, _ := json.Marshal(map[string]any{"timestamp": "2026-11-26T10:00:00Z", "type": kind, "payload": payload})
		b.Write(append(line, '\n'))
	}
	call := func(id, cmd, out string) {
		write("response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": id, "arguments": `{"cmd":"` + cmd + `"}`})
		write("response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": out})
	}
	write("session_meta", map[string]any{"id": "codex-now", "cwd": "/p/codexproj", "cli_version": "0.169.0"})
	call("call_old", "cat huge-before-compaction.log", strings.Repeat("old line\n", 5000))
	write("compacted", map[string]any{"message": "summary"})
	call("call_big", "go test ./...", strings.Repeat("ok  \texample.com/pkg\t0.01s\n", 400))
	call("call_small", "git status", "nothing to commit")
	if err := os.WriteFile(rollout, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c := ctxkeep.Chunk{Key: "k000000n0w01", SessionID: "codex-now", Project: "/p/codexproj", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentCodex,
		Turn: 1, Step: 1, Start: time.Now(), End: time.Now(), Prompt: "run the tests", Summary: "s", Body: "b"}
	if _, err := st.SaveChunks(ctx, "codex-now", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{Transcript: rollout, Turn: 1, Step: 1,
		Usage: ctxkeep.Usage{Tokens: 52_000, Window: 258_400, Model: "gpt-5.5"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutEntry(ctx, ctxkeep.Entry{ID: "eeeeeeeeeeee", SessionID: "codex-now", ToolUseID: "call_big", Tool: "Shell", Input: "go test ./...",
		Chars: 50_000, ViewChars: 9_000}, []byte("the whole output")); err != nil {
		t.Fatal(err)
	}
	page := get(s, "/now").Body.String()
	for _, want := range []string{"codexproj", "Largest items in the context", "go test ./...", "git status", `<a class="tag ok" href="/o/eeeeeeeeeeee">kept out</a>`,
		"since the last compaction", `<div class="big">52k`, `name="id" value="eeeeeeeeeeee"`} {
		if !strings.Contains(page, want) {
			t.Errorf("Now lacks %q", want)
		}
	}
	if strings.Contains(page, "huge-before-compaction") {
		t.Errorf("Now lists an output from before the compaction")
	}
	if t.Failed() {
		t.Logf("%s", page)
	}
}
