package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep/internal/progress"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// table writes aligned columns to stdout; the header row only on a
// terminal, so that a pipe gets the rows alone. (Reports such as stats
// --session keep the headers of their tables: they are read, not piped.)
func (a *app) table(header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	if a.StdoutTTY {
		fmt.Fprintln(tw, header)
	}
	return tw
}

// tip prints a closing hint ("print one with `ctxkeep show ID`") for a
// person at a terminal; a pipe gets the results alone.
func (a *app) tip(format string, args ...any) {
	if a.StdoutTTY {
		fmt.Fprintf(a.Stdout, "\n"+format+"\n", args...)
	}
}

// note tells a person at a terminal, on stderr, a choice the command made
// for them (which session "latest" is).
func (a *app) note(format string, args ...any) {
	if a.StderrTTY && !a.jsonOut {
		fmt.Fprintf(a.Stderr, "ctxkeep: "+format+"\n", args...)
	}
}

// progress is the display of long work: drawn on stderr, only on a
// terminal and never under --json.
func (a *app) progress() *progress.Display {
	return progress.New(a.Stderr, a.StderrTTY && !a.jsonOut)
}

// printable is stored text made safe to print as a summary, a snippet or a
// table cell: terminal control sequences removed (a stored output's colour
// codes must not recolour the user's terminal), other control characters
// but newlines and tabs dropped. No regexp: nothing is built at init in a
// binary whose hook path starts in milliseconds.
func printable(s string) string {
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

// cell is stored text as one table cell: printable, first line, cut to n
// bytes.
func cell(s string, n int) string {
	return text.Cut(text.FirstLine(printable(s)), n)
}

// orEmpty makes a nil list an empty one: --json documents have [] where
// there is nothing, never null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// percent is a change relative to of: "-19.3%".
func percent(n, of int64) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%+.1f%%", 100*float64(n)/float64(of))
}

// share is n as a part of of: "42.7%".
func share(n, of int64) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeLines writes lines that keep their own newlines.
func writeLines(w io.Writer, lines []string) error {
	for _, l := range lines {
		if _, err := io.WriteString(w, l); err != nil {
			return err
		}
	}
	return nil
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
