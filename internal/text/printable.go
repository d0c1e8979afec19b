package text

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

// Printable is text as a terminal would show it, made safe to print as a
// view, a summary, a snippet or a table cell, and to give the model:
// control sequences removed (colour codes, cursor moves, window titles,
// links: a stored output's escapes must not recolour the user's terminal,
// nor reach the model as noise), a line rewritten after a carriage return
// shown as it was last written (a progress bar's final state), a
// backspace taking the character before it, other control characters but
// newlines and tabs dropped. Lines stay lines: the n-th line of the result
// is what the n-th line of s showed, so line numbers into the original
// hold.
//
// The grammar of the sequences (ECMA-48 and DEC's VT500 parser: CSI, OSC,
// DCS, SOS/PM/APC, intermediates, C1 controls) is the state table of
// charmbracelet/x/ansi/parser; its parent package is not imported, as its
// width tables cost every process ~40 ms at start-up.
func Printable(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	var line []byte
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.Write(screenLine(s, line[:0]))
			return b.String()
		}
		line = screenLine(s[:i], line[:0])
		b.Write(line)
		b.WriteByte('\n')
		s = s[i+1:]
	}
}

// needsCleaning reports whether s holds a byte Printable would change:
// any C0 control but newline and tab, DEL, a UTF-8 encoded C1 control
// (0xC2 0x80–0x9F), or bytes that are not UTF-8. Most outputs hold none, and are
// returned as they are.
func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < ' ' && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return true
		}
	}
	return !utf8.ValidString(s)
}

// screenLine appends to out what one line (no newline in it) shows.
func screenLine(s string, out []byte) []byte {
	state := parser.GroundState
	var before []byte // what the line showed before its last carriage return
	for i := 0; i < len(s); {
		c := s[i]
		if state == parser.GroundState && c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 { // not UTF-8: shown as the terminal would
				out = utf8.AppendRune(out, utf8.RuneError)
				i++
				continue
			}
			if r > 0x9f {
				out = append(out, s[i:i+size]...)
				i += size
				continue
			}
			c = byte(r) // a C1 control written in UTF-8: the terminal reads it as the 8-bit one
			i += size - 1
		}
		i++
		next, action := parser.Table.Transition(state, c)
		state = next
		if state == parser.Utf8State { // a lead byte inside a sequence: its data, not text
			state = parser.GroundState
		}
		switch action {
		case parser.PrintAction:
			out = append(out, c)
		case parser.ExecuteAction:
			switch c {
			case '\t':
				out = append(out, c)
			case '\r':
				if len(bytes.TrimSpace(out)) > 0 {
					before = append(before[:0], out...)
				}
				out = out[:0] // the line is written again from its start
			case '\b':
				if n := len(out); n > 0 {
					_, size := utf8.DecodeLastRune(out)
					out = out[:n-size]
				}
			}
		}
	}
	if before != nil && len(bytes.TrimSpace(out)) == 0 {
		return append(out[:0], before...) // "done\r" and a clearing "\r   ": what stays is the last text
	}
	return out
}
