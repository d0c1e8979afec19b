package outline

import "strings"

// jsLang is TypeScript and JavaScript, JSX and TSX included, and the
// script parts of Vue and Svelte files (their markup declares nothing and
// lexes harmlessly).
var jsLang = &language{
	syn:    &syntax{slash: true, quotes: "\"'`", multi: "`", extra: regex | arrows},
	layout: braced,
	decl:   jsDecl,
	top:    func(b []byte) bool { return hasPrefix(b, "export ") },
}

// jsDecl recognises function, class, interface, type, enum, namespace,
// functions bound to a const (arrow functions, function expressions),
// class members, test blocks (describe, it, test) and, at top level,
// object literals with methods and CommonJS exports (exports.f =
// function…). Declarations made with a keyword count at any depth; class
// members only directly in a class or interface body.
func jsDecl(s *scanner, l *line) decl {
	if s.openParens() > 0 {
		return decl{}
	}
	c := at(l)
	skipDecorators(&c)
	p := s.parent()
	if p.role == members {
		return jsMember(&c, p)
	}
	exported, dflt := false, false
	orDefault := func(name string) string {
		if name == "" && dflt {
			return "default"
		}
		return name
	}
	for {
		start := c.i
		word := c.identBytes()
		c.space()
		switch string(word) {
		case "export":
			exported = true
			continue
		case "default":
			if !exported {
				return decl{} // a switch's default:
			}
			dflt = true
			switch c.peek() {
			case '{':
				return jsObject("default")
			case '(':
				return decl{kind: "func", name: "default", block: body, wait: arrow}
			}
			continue
		case "declare", "abstract":
			continue
		case "async":
			if dflt && c.peek() == '(' {
				return decl{kind: "func", name: "default", block: body, wait: arrow}
			}
			continue
		case "function":
			if c.peek() == '*' {
				c.i++
				c.space()
			}
			if name := orDefault(c.ident()); name != "" {
				return decl{kind: "func", name: name, block: body}
			}
		case "class":
			if name := orDefault(c.ident()); name != "" {
				return decl{kind: "class", name: name, block: members, skip: c.typeParams('<', '>')}
			}
		case "interface":
			if name := c.ident(); name != "" {
				return decl{kind: "interface", name: name, block: members, skip: c.typeParams('<', '>')}
			}
		case "type":
			name := c.ident()
			skip := c.typeParams('<', '>')
			c.space()
			if name != "" && c.peek() == '=' {
				return decl{kind: "type", name: name, block: body, skip: skip}
			}
		case "enum":
			return jsEnum(&c)
		case "namespace", "module":
			if c.peek() == '.' && !exported && p.role == file { // module.exports = …
				c.i = start
				return jsAssignment(&c)
			}
			name, ok := c.quoted() // declare module "x"
			if !ok {
				name = constantPath(&c, ".")
			}
			if name != "" {
				return decl{kind: "module", name: name, block: body}
			}
		case "const", "let", "var":
			if c.word("enum") {
				return jsEnum(&c)
			}
			return jsBinding(&c, p.role == file)
		case "describe", "it", "test", "context", "suite", "specify", "bench":
			c.i = start
			return jsTest(&c)
		case "":
		default:
			if !exported && p.role == file {
				c.i = start
				return jsAssignment(&c)
			}
		}
		return decl{}
	}
}

// jsObject declares an object literal bound at top level, whose methods
// are its members: Hooks.Terminal = { mounted() {…} }, a Vue component's
// export default { methods: {…} }. It only counts if it has any.
func jsObject(name string) decl {
	return decl{kind: "object", name: name, block: members, ifAny: true}
}

func jsEnum(c *cursor) decl {
	if name := c.ident(); name != "" {
		return decl{kind: "enum", name: name, block: body}
	}
	return decl{}
}

// jsBinding reads what follows const, let or var, and returns a
// declaration if a function is bound: name = (…) => …, name = async x =>
// …, name = function (…) {…}, name: Type = …, or, at top level, an
// object literal.
func jsBinding(c *cursor, top bool) decl {
	name := c.identBytes()
	if len(name) == 0 {
		return decl{} // destructuring
	}
	c.space()
	if c.peek() == '!' {
		c.i++
	}
	if c.peek() == ':' && !skipType(c) {
		return decl{}
	}
	return jsValue(c, '=', "func", name, top)
}

// jsValue reads = (or : in an object) and what follows, if it is a
// function, or an object literal where one counts. The name is only made
// a string then: most lines declare nothing.
func jsValue(c *cursor, assign byte, kind string, name []byte, object bool) decl {
	if c.peek() != assign || c.peekAt(1) == '=' || c.peekAt(1) == '>' || c.peekAt(1) == ':' {
		return decl{}
	}
	c.i++
	c.space()
	if object && c.peek() == '{' {
		return jsObject(validName(name))
	}
	c.word("async")
	switch {
	case c.word("function"):
		return decl{kind: kind, name: validName(name), block: body}
	case c.word("class"):
		return decl{kind: "class", name: validName(name), block: members}
	case c.peek() == '(' || c.peek() == '<':
		// (a, b) => …, or just (a + b): only a => will tell, maybe lines
		// further down when the parameters spread over several.
		return decl{kind: kind, name: validName(name), block: body, wait: arrow}
	case len(c.identBytes()) > 0:
		c.space()
		if c.at("=>") {
			return decl{kind: kind, name: validName(name), block: body}
		}
	}
	return decl{}
}

// skipType skips a type annotation, up to the = that ends it (not one in
// =>, or in a nested bracket).
func skipType(c *cursor) bool {
	depth := 0
	for ; c.i < len(c.b); c.i++ {
		switch c.b[c.i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if c.i > 0 && c.b[c.i-1] != '=' {
				depth--
			}
		case '=':
			if depth == 0 && c.peekAt(1) != '>' {
				return true
			}
		}
	}
	return false
}

// jsMember recognises a method of a class or an interface: name(…),
// async *name(…), get name(), #private(), [Symbol.iterator](), and
// properties bound to functions: name = (…) => ….
func jsMember(c *cursor, p *block) decl {
	for jsModifier(c) {
	}
	if c.peek() == '*' {
		c.i++
		c.space()
	}
	start := c.i
	switch q := c.peek(); {
	case q == '#':
		c.i++
		c.identBytes()
	case q == '[':
		if !c.skip('[', ']') {
			return decl{}
		}
	case q == '"' || q == '\'':
		if _, ok := c.quoted(); !ok {
			return decl{}
		}
	default:
		c.identBytes()
	}
	name := c.b[start:c.i]
	if len(name) == 0 || string(name) == "#" {
		return decl{}
	}
	if name[0] == '"' || name[0] == '\'' {
		name = name[1 : len(name)-1]
	}
	if c.peek() == '?' || c.peek() == '!' {
		c.i++
	}
	if c.peek() == '<' && !c.skip('<', '>') {
		return decl{}
	}
	c.space()
	switch {
	case c.peek() == '(':
		return decl{kind: "method", name: validName(name), block: body}
	case p.kind == "class":
		return jsValue(c, '=', "method", name, false)
	case p.kind == "object":
		return jsValue(c, ':', "method", name, true)
	}
	return decl{}
}

// jsModifier consumes a modifier, if what follows it is what it modifies:
// in get() or static(), the word is a method's name.
func jsModifier(c *cursor) bool {
	save := c.i
	switch string(c.identBytes()) {
	case "public", "private", "protected", "static", "readonly", "abstract", "override", "declare", "async", "get", "set", "accessor":
		if p := c.peek(); p == ' ' || p == '\t' {
			c.space()
			if q := c.peek(); isIdent(q) || strings.IndexByte("#[*'\"", q) >= 0 {
				return true
			}
		}
	}
	c.i = save
	return false
}

// jsTest recognises describe("…", …), it.only('…', …), test(`…`, …).
func jsTest(c *cursor) decl {
	c.identBytes()
	for c.peek() == '.' { // .only, .skip, .concurrent
		c.i++
		c.identBytes()
	}
	if c.peek() != '(' {
		return decl{}
	}
	c.i++
	if name, ok := c.quoted(); ok {
		return decl{kind: "test", name: name, block: body, inner: true}
	}
	return decl{}
}

// jsAssignment recognises CommonJS and prototype-style functions:
// module.exports = function …, exports.parse = (s) => …,
// Store.prototype.put = function (…) {…}.
func jsAssignment(c *cursor) decl {
	path := constantPath(c, ".")
	if !strings.Contains(path, ".") {
		return decl{}
	}
	c.space()
	name := strings.TrimPrefix(strings.TrimPrefix(path, "module.exports."), "exports.")
	kind := "func"
	if strings.Contains(name, ".prototype.") {
		kind = "method"
	}
	return jsValue(c, '=', kind, []byte(name), true)
}

// skipDecorators skips @decorator and @decorator(…).
func skipDecorators(c *cursor) {
	for c.peek() == '@' {
		c.i++
		constantPath(c, ".")
		if c.peek() == '(' && !c.skip('(', ')') {
			return
		}
		c.space()
	}
}
