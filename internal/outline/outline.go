// Package outline lists the declarations of a source file (its types,
// classes, functions and methods, with their line numbers) so that a model
// shown a compact view of a large file instead of the file itself still
// knows what is in it, and can read back exactly the lines it needs.
//
// It runs inside the hook process the agent waits for, so it chooses speed
// over completeness: no parser, no regular expression, one pass over the
// bytes. A small lexer follows each language's comments and strings (a def
// inside a docstring is not a declaration) and its blocks (a method is a
// function directly inside a class body); recognisers then read the first
// words of each line of code. The result is a good outline of ordinary,
// formatted code, not a syntax tree: unusual formatting can hide a
// declaration or, rarely, show something that is not one.
package outline

import (
	"bytes"
	"unicode/utf8"
)

// Symbol is one declaration found in a source file.
type Symbol struct {
	// Line is the 1-based line of the declaration, counted from the start
	// of the content given to Outline.
	Line int
	// Depth is the nesting of the declaration among the others: 0 at top
	// level, 1 for a method in a class or a function in a module, 2 for a
	// method of a class nested in another… For Markdown, the heading level
	// minus one.
	Depth int
	// Kind says what is declared: "func", "method", "class", "struct",
	// "interface", "enum", "type", "trait", "impl", "module", "namespace",
	// "object", "protocol", "extension", "macro", "test" (a test case or
	// group: Go's are plain funcs), "heading", "section", "target",
	// "stage", or for SQL "table", "view", "function", "procedure",
	// "index", "trigger", "sequence", "schema".
	Kind string
	// Name is the declared name: "Put", "SessionLive", "Installation". A
	// test's is its description; an impl's what it implements
	// ("Display for Store").
	Name string
	// Text is the declaration as written, on one line: a signature spread
	// over several lines is joined, comments after it and the opening brace
	// are left out, runs of blanks become one space. It is valid UTF-8 and
	// at most MaxText runes long, ending with "…" when cut.
	Text string
}

// MaxText is the most runes in a Symbol's Text.
const MaxText = 160

// Outline returns the declarations of a source file, in file order. path
// picks the language (see Language); content is the whole file, or a part
// of it, in which case lines count from the part's first line and a part
// that starts inside a comment or a string may be misread.
//
// With limit > 0 it returns at most limit declarations, keeping the
// shallowest: all top-level ones first, then the level below, and so on,
// the last level that does not fit whole cut in file order. That way a long
// file still shows its shape to the end rather than its first methods only.
//
// Binary content, and files in a language it does not outline (JSON, CSV,
// plain text…), give none. A function defined in several clauses, as in
// Elixir, gives one Symbol per clause: each is a place worth reading.
func Outline(path string, content []byte, limit int) []Symbol {
	lang := rulesFor(Language(path, content))
	if lang == nil || isBinary(content) {
		return nil
	}
	syms := lang.outline(content, isHeader(path))
	return keep(syms, limit)
}

// isBinary reports whether content looks like binary data, as Git decides:
// a NUL byte in its first 8000 bytes.
func isBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), 8000)], 0) >= 0
}

// keep returns at most limit of syms, the shallowest first (see Outline).
func keep(syms []Symbol, limit int) []Symbol {
	if limit <= 0 || len(syms) <= limit {
		return syms
	}
	// Count declarations per depth, then find the deepest level that fits
	// whole and how much of the next one there is room for.
	var perDepth []int
	for _, s := range syms {
		for len(perDepth) <= s.Depth {
			perDepth = append(perDepth, 0)
		}
		perDepth[s.Depth]++
	}
	whole, room := -1, limit
	for d, n := range perDepth {
		if n > room {
			break
		}
		whole, room = d, room-n
	}
	out := make([]Symbol, 0, limit)
	for _, s := range syms {
		switch {
		case s.Depth <= whole:
			out = append(out, s)
		case s.Depth == whole+1 && room > 0:
			out = append(out, s)
			room--
		}
	}
	return out
}

// cleanText makes a Symbol's Text out of the raw bytes of a declaration:
// blanks and line breaks collapse to one space, control characters and
// invalid UTF-8 are replaced, a trailing "{" goes, and the result is cut to
// MaxText runes.
func cleanText(b []byte, dropBrace bool) string {
	b = trimRight(b)
	if dropBrace && len(b) > 0 && b[len(b)-1] == '{' {
		b = trimRight(b[:len(b)-1])
	}
	if len(b) <= MaxText && printable(b) {
		return string(b) // the common case
	}
	out := make([]byte, 0, min(len(b), 4*MaxText))
	runes, space, cut := 0, false, false
	for len(b) > 0 {
		r, size := rune(b[0]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b)
		}
		b = b[size:]
		if r < ' ' || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
			if r == '\t' || r == '\n' || r == '\r' {
				r = ' '
			} else {
				r = utf8.RuneError
			}
		}
		if r == ' ' {
			space = len(out) > 0
			continue
		}
		if need := 1 + btoi(space); runes+need > MaxText {
			cut = true
			break
		}
		if space {
			out = append(out, ' ')
			runes++
			space = false
		}
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
		} else {
			out = utf8.AppendRune(out, r)
		}
		runes++
	}
	if cut {
		if runes == MaxText { // make room for the ellipsis
			_, size := utf8.DecodeLastRune(out)
			out = out[:len(out)-size]
		}
		out = append(out, "…"...)
	}
	return string(out)
}

// printable reports whether b is printable ASCII without a leading blank or
// two blanks in a row: as cleanText would make it.
func printable(b []byte) bool {
	for i, c := range b {
		if c < ' ' || c > '~' || c == ' ' && (i == 0 || b[i-1] == ' ') {
			return false
		}
	}
	return true
}

func trimRight(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// validName returns name as valid UTF-8.
func validName(name []byte) string {
	if utf8.Valid(name) {
		return string(name)
	}
	return string(bytes.ToValidUTF8(name, []byte("\uFFFD")))
}
