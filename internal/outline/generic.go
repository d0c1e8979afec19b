package outline

import "strings"

// genericLang outlines the languages it has no rules for (Perl, Zig, Nim,
// OCaml, Clojure, protobuf, Terraform…) and files it cannot name: lines
// at little indentation that start with a declaring keyword, followed by
// a name and by what usually follows a name in a declaration. Prose
// rarely does both ("class of problems" is not followed by a bracket).
var genericLang = &language{scan: genericScan}

// genericKinds maps declaring keywords to a Symbol's Kind.
var genericKinds = map[string]string{
	"function": "func", "func": "func", "fn": "func", "fun": "func", "def": "func", "defn": "func",
	"defun": "func", "sub": "func", "proc": "func", "procedure": "func", "method": "method",
	"class": "class", "module": "module", "namespace": "namespace", "package": "module",
	"struct": "struct", "record": "struct", "union": "union", "interface": "interface", "protocol": "protocol",
	"trait": "trait", "impl": "impl", "enum": "enum", "type": "type", "object": "object",
	"macro": "macro", "defmacro": "macro", "message": "struct", "service": "interface", "rpc": "method",
	// Terraform's blocks, whose names are quoted: resource "aws_s3_bucket" "logs".
	"resource": "resource", "data": "data", "variable": "variable", "output": "output", "provider": "provider",
}

// quotedOnly are the keywords too common in prose to count without a
// quoted name.
var quotedOnly = map[string]bool{"resource": true, "data": true, "variable": true, "output": true, "provider": true}

// genericMods may come before a keyword.
var genericMods = []string{"pub", "export", "public", "private", "static", "async", "local", "inline", "extern", "abstract", "final", "rec", "open"}

func genericScan(src []byte) []Symbol {
	var syms []Symbol
	for num, b := range lines(src) {
		l := newLine(b)
		if l.indent > 4 || l.head == len(l.b) {
			continue
		}
		c := at(&l)
		if c.peek() == '(' { // Lisps: (defn name, (define (name
			c.i++
		}
		for {
			if _, ok := c.oneOf(genericMods); !ok {
				break
			}
		}
		word := c.identBytes()
		kind, ok := genericKinds[string(word)]
		if !ok || !c.done() && c.peek() != ' ' && c.peek() != '\t' {
			continue
		}
		c.space()
		if quotedOnly[string(word)] && c.peek() != '"' {
			continue
		}
		name := genericName(&c)
		if name == "" {
			continue
		}
		c.space()
		if !c.done() && strings.IndexByte("({<:=[\"|", c.peek()) < 0 && !c.at("->") && !c.at("where") {
			continue // a word follows: prose
		}
		syms = append(syms, Symbol{Line: num, Depth: min(l.indent, 1), Kind: kind, Name: name, Text: cleanText(l.b[l.head:], true)})
	}
	return syms
}

// genericName reads a declared name: an identifier, maybe qualified (a.b,
// A::B), maybe ending in ! or ?, or quoted strings (resource "aws_s3" "x"
// gives aws_s3.x), or a Lisp (define (name.
func genericName(c *cursor) string {
	if c.peek() == '(' {
		c.i++
	}
	if c.peek() == '"' {
		var parts []byte
		for c.peek() == '"' {
			s, ok := c.quoted()
			if !ok {
				return ""
			}
			if len(parts) > 0 {
				parts = append(parts, '.')
			}
			parts = append(parts, s...)
			c.space()
		}
		return validName(parts)
	}
	start := c.i
	if len(c.identBytes()) == 0 {
		return ""
	}
	for !c.done() {
		switch p := c.peek(); {
		case isIdent(p), p == '-' && isIdent(c.peekAt(1)), (p == '.' || p == ':') && isIdent(c.peekAt(1)):
			c.i++
		case p == ':' && c.peekAt(1) == ':' && isIdent(c.peekAt(2)):
			c.i += 2
		case p == '!' || p == '?':
			c.i++
			return validName(c.b[start:c.i])
		default:
			return validName(c.b[start:c.i])
		}
	}
	return validName(c.b[start:c.i])
}
