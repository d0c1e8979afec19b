// Package text shortens text for people and the model: one line, a
// number of bytes, never a split character.
package text

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Cut shortens s to at most n bytes, the Ellipsis included, cutting at a
// character boundary. s shorter than n is returned as it is.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(0, n-len(Ellipsis))
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + Ellipsis
}

// CutStart shortens s to at most n bytes by cutting its start, the
// Ellipsis first: for a path, whose end (the file's name) is what tells
// one from another. It cuts after a slash when one is near, else at a
// character boundary.
func CutStart(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - max(0, n-len(Ellipsis))
	if j := strings.IndexByte(s[i:], '/'); j >= 0 && j < (n-len(Ellipsis))/3 {
		i += j
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return Ellipsis + s[i:]
}

// FirstLine is s up to its first newline, marked " …" when more lines
// follow.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " " + Ellipsis
	}
	return s
}

// Squash puts s on one line, every run of white space made one space, and
// cuts it to n bytes.
func Squash(s string, n int) string {
	return Cut(strings.Join(strings.Fields(s), " "), n)
}

// Abbrev shows an id by its first 8 characters, marked when it has more.
// Commands take such a unique prefix in place of the whole id.
func Abbrev(id string) string {
	if len(id) <= 8 {
		return id
	}
	return id[:8] + Ellipsis
}

// Bytes writes a size in decimal units, the units the config and the
// command line take (250MB): 512 B, 12.3 kB, 238.4 MB, 1.2 GB. Every size
// ctxkeep prints for people goes through it.
func Bytes(n int64) string {
	switch a := max(n, -n); {
	case a >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// Plural writes "1 failure", "3 failures": nouns whose plural adds an s.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
