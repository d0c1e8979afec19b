package ui

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// pages are the parsed templates, one set per page (each with the
// layout).
type pages struct {
	t map[string]*template.Template
}

// funcs are the templates' functions (made when a server is: nothing of
// the UI runs at the initialisation of a process that never serves it).
func funcs() template.FuncMap {
	return template.FuncMap{
		"short":       watch.Short,
		"thousands":   func(n any) string { return watch.Thousands(toInt64(n)) },
		"abbrev":      text.Abbrev,
		"bytes":       text.Bytes,
		"base":        filepath.Base,
		"shown":       shown,
		"cut":         func(n int, s string) string { return text.Cut(text.FirstLine(s), n) },
		"call":        callShort,
		"agent":       agentName,
		"compaction":  compactionWord,
		"date":        func(t time.Time) string { return dateOf(t) },
		"clock":       func(t time.Time) string { return localTime(t).Format("15:04") },
		"when":        func(t time.Time) string { return localTime(t).Format("2006-01-02 15:04") },
		"pct":         func(f float64) string { return fmt.Sprintf("%.0f%%", f) },
		"width":       func(f float64) string { return fmt.Sprintf("%.1f", math.Max(0, math.Min(100, f))) },
		"add":         func(a, b int) int { return a + b },
		"tokensOf":    func(chars int) int64 { return int64(chars+3) / 4 },
		"pinName":     func(l ctxkeep.PinLevel) string { return l.String() },
		"since":       since,
		"dur":         duration,
		"statusClass": func(st string) string { return strings.ReplaceAll(st, " ", "-") },
		"fadd":        func(a, b float64) float64 { return a + b },
		"fsub":        func(a, b float64) float64 { return a - b },
		"ratio": func(a, b int64) float64 {
			if b <= 0 {
				return 0
			}
			return 100 * float64(a) / float64(b)
		},
	}
}

func toInt64(n any) int64 {
	switch v := n.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// tz is the zone times are shown in: the machine's, as the commands show
// them.
var tz = time.Local

func localTime(t time.Time) time.Time { return t.In(tz) }

func dateOf(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return localTime(t).Format("Jan 2, 15:04")
}

// since says how long ago t was, coarsely.
func since(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "—"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

func agentName(agent string) string {
	switch agent {
	case ctxkeep.AgentCodex:
		return "Codex"
	case ctxkeep.AgentGemini:
		return "Gemini CLI"
	}
	return "Claude Code"
}

// compactionWord is what the client calls a compaction: Gemini CLI
// compresses its history.
func compactionWord(agent string) string {
	if agent == ctxkeep.AgentGemini {
		return "compression"
	}
	return "compaction"
}

func newPages(csrf string) *pages {
	p := &pages{t: map[string]*template.Template{}}
	fm := template.FuncMap{"csrf": func() string { return csrf }}
	for k, v := range funcs() {
		fm[k] = v
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	base := template.Must(template.New("").Funcs(fm).ParseFS(templateFiles, "templates/layout.html", "templates/parts.html"))
	for _, n := range names {
		name := strings.TrimSuffix(filepath.Base(n), ".html")
		if name == "layout" || name == "parts" {
			continue
		}
		p.t[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFiles, n))
	}
	p.t["parts"] = base
	return p
}

// page is what every page's layout reads.
type page struct {
	Title   string
	Nav     string // the tab to mark
	CSRF    string
	Version string
	Now     time.Time
	Data    any
}

// render writes a whole page, or an error page when building it failed.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name, title string, data any) {
	var b bytes.Buffer
	err := s.pages.t[name].ExecuteTemplate(&b, "layout", page{Title: title, Nav: name, CSRF: s.csrf, Version: s.o.Version, Now: s.o.Now(), Data: data})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// fragment writes one named part (a step, a recall) without the layout.
func (s *Server) fragment(w http.ResponseWriter, name string, data any) error {
	var b bytes.Buffer
	if err := s.pages.t["parts"].ExecuteTemplate(&b, name, data); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write(b.Bytes())
	return err
}

// fail answers a request whose page could not be built: the reason goes
// to the log, the page says it failed.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	s.logf("%s %s: %v", r.Method, r.URL.Path, err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintf(w, "ctxkeep ui could not build this page: %s\n", shown(err.Error()))
}

// notFound answers a request for something the store does not have.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, what string) {
	w.WriteHeader(http.StatusNotFound)
	s.render(w, r, "missing", "Not found", shown(what))
}

func (s *Server) routes() {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	files := http.FileServerFS(static)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "private, max-age=3600")
		files.ServeHTTP(w, r)
	})))
	mux.HandleFunc("GET /{$}", s.sessionsPage)
	mux.HandleFunc("GET /s/{id}", s.sessionPage)
	mux.HandleFunc("GET /s/{id}/live", s.livePage)
	mux.HandleFunc("GET /o/{id}", s.outputPage)
	mux.HandleFunc("GET /o/{id}/view", s.viewFragment)
	mux.HandleFunc("GET /now", s.nowPage)
	mux.HandleFunc("GET /search", s.searchPage)
	mux.HandleFunc("GET /recall/{key}", s.recallFragment)
	mux.HandleFunc("GET /store", s.storePage)
	mux.HandleFunc("POST /pin", s.pin)
	s.mux = mux
}

// duration writes a retention the way the config takes it: 24h, 90m, 30d.
func duration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// isPath reports whether a call is a file's path (a Read's), whose end
// says more than its start.
func isPath(s string) bool {
	return strings.HasPrefix(s, "/") && !strings.ContainsAny(text.FirstLine(s), " \t")
}

// callShort is a call in at most n bytes: a path keeps its end (the file's
// name says more than its root), anything else its start.
func callShort(n int, s string) string {
	s = text.FirstLine(s)
	if len(s) <= n || !strings.HasPrefix(s, "/") {
		return text.Cut(s, n)
	}
	cut := len(s) - (n - 1)
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	if i := strings.IndexByte(s[cut:], '/'); i >= 0 && i < n/3 {
		cut += i
	}
	return "…" + s[cut:]
}
