package outline

import (
	"bytes"
	"strings"
)

// The languages whose blocks are indented, or end with a keyword at the
// indentation they started at: a declaration's depth is the number of
// declarations above it at a smaller indentation.

var pythonLang = &language{
	syn:    &syntax{hash: hashComment, quotes: `"'`, triple: true},
	layout: indented,
	decl:   pythonDecl,
}

// pythonDecl recognises def, async def and class; decorators are left to
// the lines above.
func pythonDecl(s *scanner, l *line) decl {
	c := at(l)
	for {
		word := c.identBytes()
		c.space()
		switch string(word) {
		case "async":
			continue
		case "def":
			if name := c.ident(); name != "" {
				return decl{kind: methodIn(s.parent(), "class"), name: name}
			}
		case "class":
			if name := c.ident(); name != "" {
				return decl{kind: "class", name: name}
			}
		}
		return decl{}
	}
}

var rubyLang = &language{
	syn:    &syntax{hash: hashComment, quotes: "\"'`", multi: "\"'`", here: rubyHeredoc, extra: beginEnd},
	layout: indented,
	decl:   rubyDecl,
}

// rubyDecl recognises def (with private def…), class, module, and RSpec
// blocks.
func rubyDecl(s *scanner, l *line) decl {
	c := at(l)
	for {
		start := c.i
		word := c.identBytes()
		c.space()
		switch string(word) {
		case "private", "protected", "public", "private_class_method", "public_class_method", "module_function":
			continue
		case "def":
			if name := rubyMethodName(&c); name != "" {
				return decl{kind: methodIn(s.parent(), "class", "module"), name: name}
			}
		case "class":
			if c.at("<<") {
				return decl{} // class << self: its defs belong to the class
			}
			if name := constantPath(&c, "::"); name != "" {
				return decl{kind: "class", name: name}
			}
		case "module":
			if name := constantPath(&c, "::"); name != "" {
				return decl{kind: "module", name: name}
			}
		case "RSpec":
			if c.at(".describe") {
				c.i += len(".describe")
				return rubyTest(&c, l)
			}
		case "describe", "context", "it", "specify", "feature", "scenario", "shared_examples", "shared_context":
			if c.i > start+len(word) || c.peek() == '(' { // a call: it "works" do, describe(Foo) do
				return rubyTest(&c, l)
			}
		}
		return decl{}
	}
}

// rubyTest reads an RSpec block's description: a string or a constant.
func rubyTest(c *cursor, l *line) decl {
	if !endsWithDo(l.b) {
		return decl{}
	}
	if c.peek() == '(' {
		c.i++
	}
	c.space()
	if name, ok := c.quoted(); ok {
		return decl{kind: "test", name: name}
	}
	if name := constantPath(c, "::"); name != "" {
		return decl{kind: "test", name: name}
	}
	return decl{}
}

// rubyMethodName reads a method's name after def: self.find, valid?,
// name=, ==, [].
func rubyMethodName(c *cursor) string {
	start := c.i
	if c.at("self.") {
		c.i += len("self.")
	}
	if id := c.identBytes(); len(id) > 0 {
		if p := c.peek(); p == '?' || p == '!' || p == '=' && c.peekAt(1) == '(' {
			c.i++
		}
		return validName(c.b[start:c.i])
	}
	for !c.done() && c.peek() != ' ' && c.peek() != '(' && c.peek() != '\t' { // an operator
		c.i++
	}
	return validName(c.b[start:c.i])
}

// endsWithDo reports whether a line opens a do block: … do, … do |x|.
func endsWithDo(b []byte) bool {
	b = bytes.TrimRight(b, " \t")
	return bytes.HasSuffix(b, []byte(" do")) || bytes.HasSuffix(b, []byte("|")) && bytes.Contains(b, []byte(" do |"))
}

var elixirLang = &language{
	syn:    &syntax{hash: hashComment, quotes: `"'`, multi: `"'`, triple: true, extra: sigils},
	layout: indented,
	decl:   elixirDecl,
}

// elixirDecl recognises defmodule, def, defp, defmacro, defguard,
// defdelegate, defprotocol, defimpl, defstruct, and ExUnit's describe and
// test. Every clause of a multi-clause function is a Symbol: each has its
// own line worth reading (handle_event("save", …) and
// handle_event("delete", …) are different handlers).
func elixirDecl(s *scanner, l *line) decl {
	c := at(l)
	word := c.identBytes()
	if !c.done() && c.peek() != ' ' && c.peek() != '\t' {
		return decl{}
	}
	c.space()
	switch string(word) {
	case "def", "defp", "defdelegate", "defn", "defnp":
		return elixirFunc(&c, "func")
	case "defmacro", "defmacrop", "defguard", "defguardp":
		return elixirFunc(&c, "macro")
	case "defmodule":
		return elixirModule(&c, "module")
	case "defprotocol":
		return elixirModule(&c, "protocol")
	case "defimpl":
		return elixirModule(&c, "impl")
	case "defstruct", "defexception":
		// Named after the module that holds them.
		if p := s.parent(); p.kind == "module" {
			return decl{kind: "struct", name: p.name}
		}
	case "test", "describe", "property", "feature":
		if name, ok := c.quoted(); ok {
			return decl{kind: "test", name: name}
		}
	}
	return decl{}
}

func elixirFunc(c *cursor, kind string) decl {
	start := c.i
	if id := c.identBytes(); len(id) == 0 || string(id) == "unquote" {
		return decl{}
	}
	if p := c.peek(); p == '?' || p == '!' {
		c.i++
	}
	name := validName(c.b[start:c.i])
	// What may follow a function's name: its arguments, do, a guard, or
	// nothing. Anything else is an operator being defined (def a ~> b).
	switch c.peek() {
	case '(', ',', 0:
		return decl{kind: kind, name: name}
	}
	c.space()
	if c.done() || c.peek() == ',' || c.word("do") || c.word("when") {
		return decl{kind: kind, name: name}
	}
	return decl{}
}

func elixirModule(c *cursor, kind string) decl {
	if name := constantPath(c, "."); name != "" {
		return decl{kind: kind, name: name}
	}
	return decl{}
}

var luaLang = &language{
	syn:    &syntax{dashes: true, quotes: `"'`, extra: longBrackets},
	layout: indented,
	decl:   luaDecl,
}

// luaDecl recognises function a.b:c(…), local function f(…), and
// f = function(…) in its forms.
func luaDecl(s *scanner, l *line) decl {
	c := at(l)
	c.word("local")
	if c.word("function") {
		name := luaName(&c)
		if name == "" {
			return decl{}
		}
		kind := "func"
		if strings.IndexByte(name, ':') >= 0 {
			kind = "method"
		}
		return decl{kind: kind, name: name}
	}
	name := luaName(&c)
	c.space()
	if name == "" || c.peek() != '=' || c.peekAt(1) == '=' {
		return decl{}
	}
	c.i++
	c.space()
	if c.word("function") {
		return decl{kind: "func", name: name}
	}
	return decl{}
}

// luaName reads a.b.c or a.b:c.
func luaName(c *cursor) string {
	start := c.i
	for len(c.identBytes()) > 0 {
		if p := c.peek(); (p != '.' && p != ':') || !isIdent(c.peekAt(1)) {
			break
		}
		c.i++
	}
	return validName(c.b[start:c.i])
}

var shellLang = &language{
	syn:    &syntax{hash: hashWord, quotes: "\"'`", multi: "\"'`", raw: "'", here: shHeredoc, braceBlocks: true, extra: shellWords},
	layout: indented,
	decl:   shellDecl,
}

// shellDecl recognises name() { and function name [()] {.
func shellDecl(s *scanner, l *line) decl {
	c := at(l)
	keyword := c.word("function")
	start := c.i
	for !c.done() && (isIdent(c.peek()) || c.peek() == '-' || c.peek() == '.' || c.peek() == ':') {
		c.i++
	}
	name := c.b[start:c.i]
	if len(name) == 0 || isDigit(name[0]) || name[0] == '-' {
		return decl{}
	}
	c.space()
	if c.at("()") || keyword && (c.done() || c.peek() == '{' || c.peek() == '(') {
		return decl{kind: "func", name: validName(name)}
	}
	return decl{}
}

var scalaLang = &language{
	syn:    &syntax{slash: true, nest: true, quotes: `"'`, triple: true, braceBlocks: true, extra: lifetimes},
	layout: indented, // Scala 3 needs no braces; Scala 2's are indented too
	decl:   scalaDecl,
}

// scalaDecl recognises def, class, case class, object, trait, enum, type.
func scalaDecl(s *scanner, l *line) decl {
	c := at(l)
	skipAnnotations(&c)
	for {
		word := c.identBytes()
		c.space()
		switch w := string(word); w {
		case "private", "protected", "final", "sealed", "abstract", "implicit", "lazy", "override", "inline",
			"opaque", "transparent", "open", "infix", "export":
			if c.peek() == '[' { // private[pkg]
				c.skip('[', ']')
				c.space()
			}
			continue
		case "case":
			if c.at("class ") || c.at("object ") {
				continue
			}
		case "def":
			name := c.ident()
			if name == "" { // an operator: def +(that: T)
				start := c.i
				for !c.done() && strings.IndexByte(" \t([:", c.peek()) < 0 {
					c.i++
				}
				name = validName(c.b[start:c.i])
			}
			if name != "" {
				return decl{kind: methodIn(s.parent(), "class", "object", "trait", "enum"), name: name}
			}
		case "class", "object", "trait", "enum", "type":
			return named(&c, w)
		case "package":
			if c.word("object") {
				return named(&c, "object")
			}
		}
		return decl{}
	}
}

var sqlLang = &language{
	syn:    &syntax{slash: true, dashes: true, quotes: "'\"`", multi: "'", raw: "'\"`", extra: dollarQuotes},
	layout: indented,
	decl:   sqlDecl,
}

var (
	sqlOptions = []string{"or", "replace", "temporary", "temp", "unlogged", "global", "local", "materialized", "unique", "clustered", "nonclustered", "recursive", "definer", "algorithm", "sql", "security", "invoker", "fulltext", "spatial", "external", "virtual", "constraint"}
	sqlKinds   = []string{"table", "view", "function", "procedure", "index", "trigger", "type", "schema", "sequence", "domain", "extension", "event", "role", "database", "policy", "aggregate"}
)

// sqlDecl recognises CREATE [OR REPLACE] … TABLE|VIEW|FUNCTION|… name.
func sqlDecl(s *scanner, l *line) decl {
	c := at(l)
	if !wordFold(&c, "create") {
		return decl{}
	}
	for skipOption(&c) {
	}
	kind := ""
	for _, k := range sqlKinds {
		if wordFold(&c, k) {
			kind = k
			break
		}
	}
	if kind == "" {
		return decl{}
	}
	wordFold(&c, "concurrently")
	if wordFold(&c, "if") {
		wordFold(&c, "not")
		wordFold(&c, "exists")
	}
	start := c.i
	for !c.done() && strings.IndexByte(" \t(;", c.peek()) < 0 {
		c.i++
	}
	name := bytes.Trim(c.b[start:c.i], "\"`[]")
	name = bytes.ReplaceAll(bytes.ReplaceAll(name, []byte(`"."`), []byte(".")), []byte("].["), []byte("."))
	if len(name) == 0 || bytes.EqualFold(name, []byte("on")) {
		return decl{}
	}
	return decl{kind: kind, name: validName(name)}
}

// skipOption skips one of CREATE's options, DEFINER=`x`@`y` included.
func skipOption(c *cursor) bool {
	for _, o := range sqlOptions {
		if !wordFold(c, o) {
			continue
		}
		if c.peek() == '=' { // ALGORITHM=MERGE, DEFINER=`root`@`%`
			for !c.done() && c.peek() != ' ' && c.peek() != '\t' {
				c.i++
			}
			c.space()
		}
		return true
	}
	return false
}

// wordFold is cursor.word for a lower-case ASCII word, in any case.
func wordFold(c *cursor, w string) bool {
	if len(c.b)-c.i < len(w) || isIdent(c.peekAt(len(w))) {
		return false
	}
	for i := range len(w) {
		if c.b[c.i+i]|0x20 != w[i] {
			return false
		}
	}
	c.i += len(w)
	c.space()
	return true
}
