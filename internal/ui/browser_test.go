package ui_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

var updateShots = flag.Bool("update-screenshots", false, "write the screenshots of docs/UI.md (docs/ui-*.png)")

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// chromium finds Debian's chromium (scripts/install-chromium.sh installs
// it): without it the test skips on a laptop and fails in CI.
func chromium(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed: run scripts/install-chromium.sh")
		}
		t.Skip("chromium is not installed (scripts/install-chromium.sh)")
	}
	return bin
}

// session is a real public session (spotter 258c7280: 152 responses, one
// automatic compaction), its largest outputs stored by the real hook as
// the client would have replaced them.
const session = "258c7280-ae70-4798-800f-63464d01a85d"

type world struct {
	t          *testing.T
	bin        string
	env        []string
	project    string
	transcript string
	stored     []string // entry ids
}

func (w *world) run(stdin string, args ...string) []byte {
	w.t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env, cmd.Dir = w.env, w.project
	cmd.Stdin = strings.NewReader(stdin)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("ctxkeep %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out
}

// setUp copies the transcript into a fresh HOME, stores its largest Bash
// and Read outputs through `ctxkeep hook` (PostToolUse), writes the
// replacements into the copy as Claude Code does (tool_result and
// toolUseResult), and ends the turn with Stop: the archive and the proof
// of effect.
func setUp(t *testing.T) *world {
	src := realdata.File(t, "cc-sessions-spotter/"+session+".jsonl")
	dir := t.TempDir()
	w := &world{t: t, bin: testbin.Path(t), project: filepath.Join(dir, "spotter")}
	home := filepath.Join(dir, "home")
	w.transcript = filepath.Join(home, ".claude", "projects", "-spotter", session+".jsonl")
	for _, d := range []string{w.project, filepath.Dir(w.transcript)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{"HOME=" + home, "CTXKEEP_HOME=" + filepath.Join(dir, "ctxkeep"), "CLAUDE_PROJECT_DIR=" + w.project,
		"PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	w.run("", "install", "--plugin", t.TempDir()) // prepares the store (commands that only read do not)
	for _, c := range largestResults(t, lines, 4) {
		ev := map[string]any{"session_id": session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": "PostToolUse",
			"tool_name": c.tool, "tool_use_id": c.id, "tool_input": c.input, "tool_response": c.response()}
		in, _ := json.Marshal(ev)
		var reply struct {
			Out struct {
				Updated json.RawMessage `json:"updatedToolOutput"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(w.run(string(in), "hook"), &reply); err != nil || len(reply.Out.Updated) == 0 {
			t.Fatalf("PostToolUse of %s %s replaced nothing: %v", c.tool, c.id, err)
		}
		lines[c.line] = c.replaced(t, lines[c.line], reply.Out.Updated)
	}
	if err := os.WriteFile(w.transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.stop()
	var list struct {
		Entries []struct {
			ID      string `json:"id"`
			Applied *bool  `json:"applied"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(w.run("", "list", "--all", "--json"), &list); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Entries {
		if e.Applied == nil || !*e.Applied {
			t.Fatalf("entry %s: the replacement is not applied in the copy", e.ID)
		}
		w.stored = append(w.stored, e.ID)
	}
	if len(w.stored) < 3 {
		t.Fatalf("stored %d outputs, want 3 or more", len(w.stored))
	}
	return w
}

func (w *world) stop() {
	ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": "Stop"})
	w.run(string(ev), "hook")
}

type result struct {
	line  int
	id    string
	tool  string
	input map[string]any
	text  string
}

func (c result) response() any {
	if c.tool == "Read" {
		n := strings.Count(c.text, "\n")
		return map[string]any{"type": "text", "file": map[string]any{"filePath": c.input["file_path"], "content": c.text, "numLines": n, "startLine": 1, "totalLines": n}}
	}
	return map[string]any{"stdout": c.text, "stderr": "", "interrupted": false, "isImage": false}
}

// replaced is the transcript line with the hook's replacement in place of
// the result, as the client records it.
func (c result) replaced(t *testing.T, line string, updated json.RawMessage) string {
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(updated, &out); err != nil {
		t.Fatal(err)
	}
	view, _ := out["stdout"].(string)
	if f, ok := out["file"].(map[string]any); ok {
		view, _ = f["content"].(string)
	}
	for _, b := range rec["message"].(map[string]any)["content"].([]any) {
		if b := b.(map[string]any); b["type"] == "tool_result" && b["tool_use_id"] == c.id {
			b["content"] = view
		}
	}
	rec["toolUseResult"] = out
	data, _ := json.Marshal(rec)
	return string(data)
}

// largestResults are the n largest Bash and Read results of a transcript.
func largestResults(t *testing.T, lines []string, n int) []result {
	type block struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     map[string]any  `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	calls := map[string]block{}
	var out []result
	for i, l := range lines {
		var rec struct {
			Message struct {
				Content []block `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &rec) != nil {
			continue
		}
		for _, b := range rec.Message.Content {
			switch b.Type {
			case "tool_use":
				calls[b.ID] = b
			case "tool_result":
				var s string
				if c := calls[b.ToolUseID]; json.Unmarshal(b.Content, &s) == nil && (c.Name == "Bash" || c.Name == "Read") {
					out = append(out, result{line: i, id: b.ToolUseID, tool: c.Name, input: c.Input, text: s})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b result) int { return len(b.text) - len(a.text) })
	if len(out) < n {
		t.Fatalf("the transcript has %d Bash and Read results, want %d", len(out), n)
	}
	return out[:n]
}

// serve starts `ctxkeep ui` and returns the URL it printed first.
func (w *world) serve() string {
	t := w.t
	cmd := exec.Command(w.bin, "ui", "--no-open")
	// Two outputs a session at most, so that the Store page's dry run has
	// something to list: the oldest of the four just stored.
	cmd.Env, cmd.Dir = append(w.env, "CTXKEEP_LIMITS_ENTRIES_PER_SESSION=2"), w.project
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// No deadline of its own: a server that never stops is caught by
		// go test's -timeout, with every goroutine's stack.
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("ctxkeep ui ended with %v\n%s", err, errb.String())
		}
	})
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v\n%s", err, errb.String())
	}
	go io.Copy(io.Discard, stdout)
	u := strings.TrimSpace(first)
	if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "/?token=") {
		t.Fatalf("the first line is %q, want the URL with its token", u)
	}
	return u
}

// TestBrowser drives Debian's chromium through the UI of a real session:
// the sessions list, the session (chart, a stored output as the model
// saw it, the exact original), search with a recall in place, a pin that
// `ctxkeep pins` then lists, Now, Store with its check, and a step that
// appears live when the Stop hook archives it. Then what it refuses: no
// token, a foreign Host, a cross-origin POST (from a page of another
// origin, in the same browser). With -update-screenshots it writes
// docs/ui-*.png.
func TestBrowser(t *testing.T) {
	chrome := chromium(t)
	w := setUp(t)
	raw := w.serve()
	base := strings.TrimSuffix(raw[:strings.Index(raw, "/?token=")], "/")
	token := raw[strings.Index(raw, "token=")+len("token="):]

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("hide-scrollbars", true), chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	shot := func(name string) {
		t.Helper()
		// Drawn: the fonts loaded and two frames painted since the last
		// change (an event of the page, not a pause).
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.fonts.ready.then(() => new Promise(r =>
			requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))`, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 20_000 {
			t.Fatalf("screenshot %s: %d bytes", name, len(png))
		}
		path := filepath.Join(t.TempDir(), name+".png")
		// docs/UI.md shows every page in the light theme, and one in the
		// dark (the other dark ones are taken, each page drawn in that theme,
		// and not kept).
		if *updateShots && (!strings.HasSuffix(name, "-dark") || name == "session-dark") {
			path = filepath.Join("..", "..", "docs", "ui-"+name+".png")
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.WaitVisible(sel)); err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}

	// The sessions list: the URL sets the cookie and drops the token.
	if err := chromedp.Do(ctx, chromedp.Navigate(raw), chromedp.WaitVisible("table.sessions")); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address bar: %s", loc)
	}
	if s := text("table.sessions"); !strings.Contains(s, "Implement spotter-gqc") || !strings.Contains(s, "applied") {
		t.Errorf("the sessions list lacks the session or what was kept out:\n%s", s)
	}
	shot("sessions")

	// The session: the chart, the timeline, a stored output as the model saw it.
	if err := chromedp.Do(ctx, chromedp.Click(`a[href="/s/`+session+`"]`), chromedp.WaitVisible("svg.chart"),
		chromedp.WaitVisible(`html[data-chart="ready"]`)); err != nil {
		t.Fatal(err)
	}
	if nodes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.chart .swap").length`)); err != nil || nodes < 3 {
		t.Errorf("the chart marks %d outputs kept out, want 3 or more (%v)", nodes, err)
	}
	if s := text(".side"); !strings.Contains(s, "auto-compaction at 167k") || !strings.Contains(s, "auto after response") {
		t.Errorf("the gauge or the compaction is missing:\n%s", s)
	}
	first := `details.output[data-id="` + w.stored[0] + `"]`
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(first), chromedp.Click(first+" > summary"), chromedp.WaitVisible(first+" pre.viewtext")); err != nil {
		t.Fatal(err)
	}
	if s := text(first + " pre.viewtext"); !strings.HasPrefix(s, "[ctxkeep]") {
		t.Errorf("what the model saw is not ctxkeep's view: %.200s", s)
	}
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(first)); err != nil {
		t.Fatal(err)
	}
	shot("session")

	// The exact original, one click away.
	if err := chromedp.Do(ctx, chromedp.Click(first+" a.primary"), chromedp.WaitVisible("pre.lines"), chromedp.WaitVisible("pre.viewtext")); err != nil {
		t.Fatal(err)
	}
	if s := text("#original .meta"); !strings.Contains(s, "lines 1–") {
		t.Errorf("the original is not shown by lines: %s", s)
	}
	shot("output")

	// Pin it, then ask the command line.
	if err := chromedp.Do(ctx, chromedp.Click(`form.pin button[value="soft"]`), chromedp.WaitVisible(`.side .pinned`)); err != nil {
		t.Fatal(err)
	}
	var pins struct {
		Pins []struct {
			ID    string `json:"id"`
			Level string `json:"pin_level"`
		} `json:"pins"`
	}
	if err := json.Unmarshal(w.run("", "pins", "--json"), &pins); err != nil {
		t.Fatal(err)
	}
	if len(pins.Pins) != 1 || pins.Pins[0].ID != w.stored[0] || pins.Pins[0].Level != "soft" {
		t.Errorf("ctxkeep pins after pinning %s in the page: %+v", w.stored[0], pins.Pins)
	}

	// Search, and recall a result in place.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/search?q=annotation+transcripts"), chromedp.WaitVisible("li.result"),
		chromedp.Click("li.result button.recall"), chromedp.WaitVisible("li.result .recall pre")); err != nil {
		t.Fatal(err)
	}
	if s := text("li.result .recall pre"); !strings.Contains(s, "── step") {
		t.Errorf("the recall is not a step: %.200s", s)
	}
	shot("search")

	// Now and Store.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/now"), chromedp.WaitVisible("section.now svg.stack")); err != nil {
		t.Fatal(err)
	}
	if s := text("section.now"); !strings.Contains(s, "Largest items") || !strings.Contains(s, "pinned soft") {
		t.Errorf("Now lacks the largest items or the pin:\n%.600s", s)
	}
	shot("now")

	// Now's buttons: unpin the output, see it unpinned in `ctxkeep pins`,
	// pin it again (each click reloads the page: wait for the other
	// button to appear in the output's row).
	row := `section.now form.pin:has(input[name="id"][value="` + w.stored[0] + `"])`
	for _, c := range []struct{ click, then string }{{"none", "soft"}, {"soft", "none"}} {
		if err := chromedp.Do(ctx, chromedp.ScrollIntoView(row), chromedp.Click(row+` button[value="`+c.click+`"]`),
			chromedp.WaitVisible(row+` button[value="`+c.then+`"]`)); err != nil {
			t.Fatalf("Now, %s: %v", c.click, err)
		}
		if err := json.Unmarshal(w.run("", "pins", "--json"), &pins); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"none": 0, "soft": 1}[c.click]; len(pins.Pins) != want {
			t.Errorf("ctxkeep pins after %q in Now: %+v", c.click, pins.Pins)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/store?check=1"), chromedp.WaitVisible("table.kv")); err != nil {
		t.Fatal(err)
	}
	if s := text("main"); !strings.Contains(s, "No problem found") || !strings.Contains(strings.ToLower(s), "what the next prune would remove") || strings.Count(s, "over limits.entries_per_session") < 1 {
		t.Errorf("Store lacks the check or the dry run:\n%s", s)
	}
	shot("store")

	// The same pages in a dark system theme: legible on both.
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, path, ready string }{
		{"sessions-dark", "/", "table.sessions"}, {"now-dark", "/now", "section.now svg.stack"}, {"store-dark", "/store", "table.kv"},
		{"output-dark", "/o/" + w.stored[0], "pre.lines"}, {"search-dark", "/search?q=annotation+transcripts", "li.result"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+p.path), chromedp.WaitVisible(p.ready)); err != nil {
			t.Fatal(err)
		}
		if dark, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`matchMedia("(prefers-color-scheme: dark)").matches`)); err != nil || !dark {
			t.Fatalf("the dark theme is not emulated (%v)", err)
		}
		shot(p.name)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/s/"+session), chromedp.WaitVisible(`html[data-chart="ready"]`),
		chromedp.ScrollIntoView(first), chromedp.Click(first+" > summary"), chromedp.WaitVisible(first+" pre.viewtext"), chromedp.ScrollIntoView(first)); err != nil {
		t.Fatal(err)
	}
	shot("session-dark")
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}}); err != nil {
		t.Fatal(err)
	}

	// Live: a new turn is written and the Stop hook archives it.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/s/"+session), chromedp.WaitVisible("#live")); err != nil {
		t.Fatal(err)
	}
	w.appendTurn("show me the live step from the browser test", 91_234)
	w.stop()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`li.step.fresh`)); err != nil {
		t.Fatalf("no step arrived live: %v", err)
	}
	if s := text("#turns"); !strings.Contains(s, "show me the live step from the browser test") {
		t.Errorf("the live step is not the new turn")
	}
	if s := text("#gauge"); !strings.Contains(s, "91.2k") {
		t.Errorf("the gauge did not move to the new response: %s", s)
	}

	// What it refuses, in the same browser: a page of another origin posting a pin.
	evil := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(rw, `<!DOCTYPE html><form method="post" action="%s/pin"><input name="id" value="%s"><input name="level" value="hard"><input name="csrf" value="guess"></form><script>document.forms[0].submit()</script>`, base, w.stored[1])
	}))
	defer evil.Close()
	// The page posts its form as it loads: wait for the browser to show
	// the answer to that POST (an event, not a pause).
	posted := make(chan struct{})
	var once sync.Once
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*page.EventFrameNavigated); ok && e.Frame.ParentID == "" && e.Frame.URL == base+"/pin" {
			once.Do(func() { close(posted) })
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(evil.URL)); err != nil {
		t.Fatal(err)
	}
	<-posted
	if err := chromedp.Do(ctx, chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx, chromedp.Text("body"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "Refused") {
		t.Errorf("a cross-origin POST was not refused: %.300s", body)
	}
	if err := json.Unmarshal(w.run("", "pins", "--json"), &pins); err != nil || len(pins.Pins) != 1 {
		t.Errorf("a cross-origin POST pinned something: %+v", pins.Pins)
	}
	refusals(t, base, token, w.stored[1])
}

// refusals checks, without a browser, what no browser would send: no
// token, a wrong one, a foreign Host, a POST without the CSRF token or from
// another origin, and a method that is not GET or POST.
func refusals(t *testing.T, base, token, id string) {
	u, _ := url.Parse(base)
	cookie := &http.Cookie{Name: "ctxkeep_ui_" + u.Port(), Value: token}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, body string, edit func(*http.Request)) int {
		t.Helper()
		r, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if edit != nil {
			edit(r)
		}
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	withCookie := func(r *http.Request) { r.AddCookie(cookie) }
	cases := []struct {
		name   string
		method string
		path   string
		body   string
		edit   func(*http.Request)
		want   int
	}{
		{"no token", "GET", "/", "", nil, http.StatusUnauthorized},
		{"no token, an output", "GET", "/o/" + id, "", nil, http.StatusUnauthorized},
		{"a wrong token", "GET", "/?token=" + strings.Repeat("0", len(token)), "", nil, http.StatusUnauthorized},
		{"a wrong cookie", "GET", "/", "", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: cookie.Name, Value: "x"}) }, http.StatusUnauthorized},
		{"a foreign Host (DNS rebinding)", "GET", "/", "", func(r *http.Request) { withCookie(r); r.Host = "attacker.example:" + u.Port() }, http.StatusMisdirectedRequest},
		{"a foreign Host with the token", "GET", "/?token=" + token, "", func(r *http.Request) { r.Host = "rebind.attacker.example:" + u.Port() }, http.StatusMisdirectedRequest},
		{"another port", "GET", "/", "", func(r *http.Request) { withCookie(r); r.Host = "127.0.0.1:1" }, http.StatusMisdirectedRequest},
		{"a POST without the CSRF token", "POST", "/pin", "id=" + id + "&level=hard", withCookie, http.StatusForbidden},
		{"a cross-site POST", "POST", "/pin", "id=" + id + "&level=hard&csrf=x", func(r *http.Request) {
			withCookie(r)
			r.Header.Set("Origin", "http://attacker.example")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}, http.StatusForbidden},
		{"a GET that would pin", "GET", "/pin?id=" + id + "&level=hard", "", withCookie, http.StatusMethodNotAllowed},
		{"DELETE", "DELETE", "/", "", withCookie, http.StatusMethodNotAllowed},
		{"the page itself", "GET", "/", "", withCookie, http.StatusOK},
		{"localhost", "GET", "/", "", func(r *http.Request) { withCookie(r); r.Host = "localhost:" + u.Port() }, http.StatusOK},
	}
	for _, c := range cases {
		if got := do(c.method, c.path, c.body, c.edit); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
}

// appendTurn writes a new prompt and its response to the transcript, as
// the client would, with the context at tokens.
func (w *world) appendTurn(prompt string, tokens int64) {
	data, err := os.ReadFile(w.transcript)
	if err != nil {
		w.t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var last struct {
		UUID string `json:"uuid"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	user := map[string]any{"type": "user", "uuid": "live-user-1", "parentUuid": last.UUID, "sessionId": session, "timestamp": now,
		"cwd": w.project, "isSidechain": false, "message": map[string]any{"role": "user", "content": prompt}}
	asst := map[string]any{"type": "assistant", "uuid": "live-assistant-1", "parentUuid": "live-user-1", "sessionId": session, "timestamp": now,
		"cwd": w.project, "isSidechain": false, "message": map[string]any{"id": "msg_live_1", "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "text", "text": "Here is the live step, archived at the end of the turn."}},
			"usage":   map[string]any{"input_tokens": 4, "cache_read_input_tokens": tokens - 104, "output_tokens": 100}}}
	f, err := os.OpenFile(w.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	for _, rec := range []any{user, asst} {
		b, _ := json.Marshal(rec)
		f.Write(append(b, '\n'))
	}
}
