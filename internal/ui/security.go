package ui

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// How the server defends the sessions it shows (docs/UI.md, "Safe by
// default"), in the order a request meets them:
//
//  1. The Host header must name the address it listens on: an IP
//     literal or "localhost" (a loopback one when it listens on
//     loopback), with its port. A page of another site that rebinds its
//     own name to 127.0.0.1 sends its own name as Host, and is refused
//     (DNS rebinding).
//  2. Every request carries the token: the cookie set when the printed
//     URL was opened, or ?token= on any URL (as Jupyter does), which sets
//     the cookie and redirects to the same URL without it, so that the
//     token stays out of the history and the pages' links.
//  3. A request that changes something is a POST (anything else is
//     refused); it must come from the UI's own pages (Sec-Fetch-Site and
//     Origin, net/http's CrossOriginProtection) and carry the CSRF token
//     the pages' forms hold.
//  4. Every response forbids what the pages do not need: scripts, styles
//     and connections from anywhere but the server, frames, referrers,
//     caching.

// cookieName is per port: cookies are shared by every port of a host, and
// two UIs (two users, two stores) must not see each other's token.
func (s *Server) cookieName() string {
	_, port, _ := net.SplitHostPort(s.addr)
	return "ctxkeep_ui_" + port
}

// guard applies the checks above before any handler runs.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !s.hostAllowed(r.Host) {
			refuse(w, http.StatusMisdirectedRequest, "This server answers only for "+s.addr+
				": the Host header names another address (a page of another site may be trying to reach it).")
			return
		}
		if t := r.URL.Query().Get("token"); t != "" {
			if !s.tokenOK(t) {
				refuse(w, http.StatusUnauthorized, "Wrong token: open the URL `ctxkeep ui` printed.")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				u := *r.URL
				q := u.Query()
				q.Del("token")
				u.RawQuery = q.Encode()
				u.Scheme, u.Host = "", ""
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
		} else if c, err := r.Cookie(s.cookieName()); err != nil || !s.tokenOK(c.Value) {
			refuse(w, http.StatusUnauthorized, "This page needs the token `ctxkeep ui` printed: open the URL it printed (…/?token=…).")
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodPost:
			if err := s.cross.Check(r); err != nil {
				refuse(w, http.StatusForbidden, "Refused: the request comes from another site ("+err.Error()+").")
				return
			}
			if !s.csrfOK(r) {
				refuse(w, http.StatusForbidden, "Refused: the form's CSRF token is missing or wrong; reload the page.")
				return
			}
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			refuse(w, http.StatusMethodNotAllowed, "Method not allowed.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a request's Host names this server: an IP
// literal or localhost, with its port; a loopback one when it listens on
// loopback, the very address when it listens on one address.
func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	lhost, lport, _ := net.SplitHostPort(s.addr)
	if port != lport {
		return false
	}
	ip := net.ParseIP(host)
	switch {
	case strings.EqualFold(host, "localhost"):
		return true
	case ip == nil:
		return false // a name: only localhost is ours
	case s.loop:
		return ip.IsLoopback()
	}
	lip := net.ParseIP(lhost)
	return lip == nil || lip.IsUnspecified() || lip.Equal(ip) || ip.IsLoopback()
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// csrfOK checks the CSRF token of a POST: the form's csrf field, or the
// X-CSRF-Token header of the pages' scripts.
func (s *Server) csrfOK(r *http.Request) bool {
	t := r.Header.Get("X-CSRF-Token")
	if t == "" {
		r.Body = http.MaxBytesReader(nil, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			return false
		}
		t = r.PostForm.Get("csrf")
	}
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.csrf)) == 1
}

// refuse answers a refused request with a short plain page.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(http.StatusText(code) + "\n\n" + msg + "\n"))
}

// localPath is a redirect target from a form: a path of this server,
// never another site's.
func localPath(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(s, "//") || strings.Contains(s, `\`) {
		return "/"
	}
	return u.RequestURI()
}
