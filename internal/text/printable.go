package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is stored text made safe to print as a summary, a snippet or
// a table cell: terminal control sequences removed (a stored output's
// colour codes must not recolour the user's terminal, nor reach the model
// as noise), other control characters but newlines and tabs dropped. No
// regexp: nothing is built at init in a binary whose hook path starts in
// milliseconds.
func Printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\x1b' && i+1 < len(s) && s[i+1] == '[':
			i = skipCSI(s, i+2)
		case r == '\u009b':
			i = skipCSI(s, i+size)
		case r == '\x1b' && i+1 < len(s) && s[i+1] == ']':
			i = skipOSC(s, i+2)
		case r == '\x1b':
			i = skipEscape(s, i+1)
		case isControl(r):
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// skipCSI returns the index after a control sequence's final byte (@ to
// ~), its parameters starting at i.
func skipCSI(s string, i int) int {
	for i < len(s) && (s[i] < '@' || s[i] > '~') {
		i++
	}
	return min(i+1, len(s))
}

// skipEscape returns the index after any other escape sequence (ESC c,
// ESC ( B, ESC 7…): intermediate bytes, then one final byte.
func skipEscape(s string, i int) int {
	for i < len(s) && s[i] >= ' ' && s[i] <= '/' {
		i++
	}
	if i < len(s) && s[i] >= '0' && s[i] <= '~' {
		i++
	}
	return i
}

// skipOSC returns the index after an operating system command (a window
// title, a link): up to BEL or ESC \.
func skipOSC(s string, i int) int {
	for ; i < len(s); i++ {
		switch {
		case s[i] == '\a':
			return i + 1
		case s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		}
	}
	return i
}

func isControl(r rune) bool {
	return r != '\n' && r != '\t' && unicode.IsControl(r)
}
