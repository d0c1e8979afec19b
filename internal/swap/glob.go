package swap

import "strings"

// A glob is a pattern for one line of output, as condensers write them
// (condensers.go): literal text, "…" for any run of characters (possibly
// none), and "{set}" for a run of one or more characters of the set, in
// which "a-z" is a range ("{0-9}", "{.*}", "{0-9a-f}"). A glob matches
// the whole line. Patterns have no literal braces.
//
// Globs rather than regular expressions: condensers run in the hook, on
// outputs of up to megabytes, and compiling a table of regular expressions
// would cost every process its start-up.
type glob []segment

type segment struct {
	lit string // literal text
	set string // the bytes of a "{…}" run
	any bool   // "…"
}

// parseGlob reads a pattern; a "{" without its "}" is taken literally.
func parseGlob(p string) glob {
	var g glob
	for p != "" {
		switch {
		case strings.HasPrefix(p, anyRun):
			g = append(g, segment{any: true})
			p = p[len(anyRun):]
		case p[0] == '{' && strings.IndexByte(p, '}') > 1:
			end := strings.IndexByte(p, '}')
			g = append(g, segment{set: expandSet(p[1:end])})
			p = p[end+1:]
		default:
			n := len(p)
			if i := strings.Index(p, anyRun); i >= 0 {
				n = i
			}
			if i := strings.IndexByte(p[:n], '{'); i > 0 && strings.IndexByte(p[i:], '}') > 1 {
				n = i
			} else if i == 0 {
				n = 1
			}
			if len(g) > 0 && g[len(g)-1].lit != "" {
				g[len(g)-1].lit += p[:n]
			} else {
				g = append(g, segment{lit: p[:n]})
			}
			p = p[n:]
		}
	}
	return g
}

const anyRun = "…"

// expandSet turns "0-9a-f_" into the bytes it names.
func expandSet(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+2 < len(s) && s[i+1] == '-' && s[i] <= s[i+2] {
			for c := s[i]; c <= s[i+2]; c++ {
				b.WriteByte(c)
			}
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// match reports whether the whole of t matches g.
func (g glob) match(t string) bool {
	for len(g) > 0 {
		s := g[0]
		g = g[1:]
		switch {
		case s.lit != "":
			if !strings.HasPrefix(t, s.lit) {
				return false
			}
			t = t[len(s.lit):]
		case s.set != "":
			n := 0
			for n < len(t) && strings.IndexByte(s.set, t[n]) >= 0 {
				n++
			}
			for k := n; k >= 1; k-- {
				if g.match(t[k:]) {
					return true
				}
			}
			return false
		default: // any run
			if len(g) == 0 {
				return true
			}
			if lit := g[0].lit; lit != "" { // only where the next literal is
				for i := 0; ; {
					j := strings.Index(t[i:], lit)
					if j < 0 {
						return false
					}
					if g.match(t[i+j:]) {
						return true
					}
					i += j + 1
				}
			}
			for i := 0; i <= len(t); i++ {
				if g.match(t[i:]) {
					return true
				}
			}
			return false
		}
	}
	return t == ""
}
