package swap

import (
	"fmt"
	"unicode/utf8"
)

// MinPointer is the smallest Read worth answering with a pointer when it
// repeats an earlier one: below it, the pointer saves little.
const MinPointer = 1000

// ReadRange describes the lines a Read asked for, "" for the whole file.
func ReadRange(offset, limit int) string {
	if offset <= 0 && limit <= 0 {
		return ""
	}
	return fmt.Sprintf("offset %d, limit %d", offset, limit)
}

// Pointer is what the model sees in place of a Read that returned exactly
// what an earlier Read of the same lines of the same file returned in
// this conversation: a short note that the earlier result is still
// current. The earlier result is still in the context (the hook forgets
// reads at compaction), so nothing is lost to the model, and the content
// is stored like any replaced output.
func Pointer(it Item, lines string) (string, Stats) {
	what := "this file"
	if it.FilePath != "" {
		what = cut(it.FilePath, 300)
	}
	if lines != "" {
		what += " (" + lines + ")"
	}
	text := fmt.Sprintf("[ctxkeep] Unchanged since your earlier Read of %s in this conversation: the same lines, the same content. "+
		"That result is still current; refer to it. This one is kept exactly as id %s (`ctxkeep show %s`).\n", what, it.ID, it.ID)
	n := len(splitLines(it.Text))
	st := Stats{
		Chars: utf8.RuneCountInString(it.Text), Lines: n, ViewChars: utf8.RuneCountInString(text), Kind: KindPointer,
		Brief: fmt.Sprintf("%s lines, unchanged re-read", commas(n)),
	}
	return text, st
}
