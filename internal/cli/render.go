package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ctxkeep/ctxkeep"
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

// printable is stored text made safe to print (text.Printable).
func printable(s string) string { return text.Printable(s) }

// printableEntry is an entry as a --json document shows it: the texts a
// person or an agent reads (the call, the summary, the pin's reason, the
// verdict) as a terminal shows them. Entries stored before summaries were
// made so may hold a tool's escape sequences.
func printableEntry(e ctxkeep.Entry) ctxkeep.Entry {
	e.Input, e.Summary, e.PinReason, e.Verdict = printable(e.Input), printable(e.Summary), printable(e.PinReason), printable(e.Verdict)
	return e
}

// printableEntries is printableEntry of each of es, in place.
func printableEntries(es []ctxkeep.Entry) []ctxkeep.Entry {
	for i := range es {
		es[i] = printableEntry(es[i])
	}
	return es
}

// cell is stored text as one table cell: printable, first line, cut to n
// bytes.
func cell(s string, n int) string {
	return text.Cut(text.FirstLine(printable(s)), n)
}

// orEmpty makes a nil list an empty one: --json documents have [] where
// there is nothing, never null.
// callCell is a tool call's input as one table cell: a path (one word
// with a slash) keeps its end, the file's name, when cut; anything else
// its start.
func callCell(input string, n int) string {
	if strings.HasPrefix(input, "{") { // a call's raw input (Write, Edit…): its file says what it was
		var in struct {
			FilePath     string `json:"file_path"`
			NotebookPath string `json:"notebook_path"`
		}
		if json.Unmarshal([]byte(input), &in) == nil && in.FilePath+in.NotebookPath != "" {
			input = in.FilePath + in.NotebookPath
		}
	}
	s := text.FirstLine(printable(input))
	if strings.ContainsRune(s, '/') && !strings.ContainsAny(s, " \t") {
		return text.CutStart(s, n)
	}
	return text.Cut(s, n)
}

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
