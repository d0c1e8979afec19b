package outline

import "strings"

// jsLang is TypeScript and JavaScript, JSX and TSX included, and the
// script parts of Vue and Svelte files (their markup declares nothing and
// lexes harmlessly).
var jsLang = &language{
	syn:    &syntax{slash: true, quotes: "\"'`", multi: "`", extra: regex | arrows},
	layout: braced,
	decl:   jsDecl,
}

var (
	jsMemberMods = []string{"public", "private", "protected", "static", "readonly", "abstract", "override", "declare", "async", "get", "set", "accessor"}
	jsTests      = []string{"describe", "it", "test", "context", "suite", "specify", "bench"}
)

// jsDecl recognises function, class, interface, type, enum, namespace,
// functions bound to a const (arrow functions, function expressions),
// class members, test blocks (describe, it, test) and CommonJS exports
// (exports.f = function…). Declarations made with a keyword count at any
// depth; class members only directly in a class or interface body.
func jsDecl(s *scanner, l *line) decl {
	if s.openParens() > 0 {
		return decl{}
	}
	c := at(l)
	skipDecorators(&c)
	if c.done() {
		return decl{}
	}
	p := s.parent()
	if p.role == members {
		return jsMember(&c, p)
	}
	start := c.i
	exported := c.word("export")
	dflt := exported && c.word("default")
	c.word("declare")
	c.word("abstract")
	if c.at("async ") {
		c.word("async")
		if !c.at("function") {
			c.i = start
		}
	}
	orDefault := func(name string) string {
		if name == "" && dflt {
			return "default"
		}
		return name
	}
	switch {
	case c.word("function"):
		if c.peek() == '*' {
			c.i++
			c.space()
		}
		if name := orDefault(c.ident()); name != "" {
			return decl{kind: "func", name: name, block: body}
		}
	case c.word("class"):
		if name := orDefault(c.ident()); name != "" {
			return decl{kind: "class", name: name, block: members}
		}
	case c.word("interface"):
		if name := c.ident(); name != "" {
			return decl{kind: "interface", name: name, block: members}
		}
	case c.word("type"):
		name := c.ident()
		c.space()
		if name != "" && (c.peek() == '=' || c.peek() == '<') {
			return decl{kind: "type", name: name, block: body}
		}
	case c.word("enum"):
		return jsEnum(&c)
	case c.word("namespace"), c.word("module"):
		name, ok := c.quoted() // declare module "x"
		if !ok {
			name = constantPath(&c, ".")
		}
		if name != "" {
			return decl{kind: "module", name: name, block: body}
		}
	case c.word("const"), c.word("let"), c.word("var"):
		if c.word("enum") {
			return jsEnum(&c)
		}
		return jsBinding(&c, p.role == file)
	case dflt:
		switch {
		case c.peek() == '{':
			return jsObject("default")
		case c.peek() == '(' || c.word("async") && c.peek() == '(':
			return decl{kind: "func", name: "default", block: body, wait: arrow}
		}
	case !exported:
		if d := jsTest(&c); d.found() {
			return d
		}
		return jsAssignment(&c, p.role == file)
	}
	return decl{}
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
	name := c.ident()
	if name == "" {
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
// function, or an object literal where one counts.
func jsValue(c *cursor, assign byte, kind, name string, object bool) decl {
	if c.peek() != assign || c.peekAt(1) == '=' || c.peekAt(1) == '>' || c.peekAt(1) == ':' {
		return decl{}
	}
	c.i++
	c.space()
	if object && c.peek() == '{' {
		return jsObject(name)
	}
	c.word("async")
	switch {
	case c.word("function"):
		return decl{kind: kind, name: name, block: body}
	case c.word("class"):
		return decl{kind: "class", name: name, block: members}
	case c.peek() == '(' || c.peek() == '<':
		// (a, b) => …, or just (a + b): only a => will tell, maybe lines
		// further down when the parameters spread over several.
		return decl{kind: kind, name: name, block: body, wait: arrow}
	case len(c.identBytes()) > 0:
		c.space()
		if c.at("=>") {
			return decl{kind: kind, name: name, block: body}
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
func jsMember(c *cursor, p block) decl {
	for jsModifier(c) {
	}
	if c.peek() == '*' {
		c.i++
		c.space()
	}
	var name string
	switch q := c.peek(); {
	case q == '#':
		c.i++
		name = "#" + c.ident()
	case q == '[':
		start := c.i
		if !c.skip('[', ']') {
			return decl{}
		}
		name = validName(c.b[start:c.i])
	case q == '"' || q == '\'':
		name, _ = c.quoted()
	default:
		name = c.ident()
	}
	if name == "" || name == "#" {
		return decl{}
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
		return decl{kind: "method", name: name, block: body}
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
	for _, m := range jsMemberMods {
		if !c.at(m) || (c.peekAt(len(m)) != ' ' && c.peekAt(len(m)) != '\t') {
			continue
		}
		save := c.i
		c.i += len(m)
		c.space()
		if q := c.peek(); isIdent(q) || strings.IndexByte("#[*'\"", q) >= 0 {
			return true
		}
		c.i = save
		return false
	}
	return false
}

// jsTest recognises describe("…", …), it.only('…', …), test(`…`, …).
func jsTest(c *cursor) decl {
	start := c.i
	if _, ok := c.oneOfCall(jsTests); !ok {
		c.i = start
		return decl{}
	}
	for c.peek() == '.' { // .only, .skip, .concurrent
		c.i++
		c.identBytes()
	}
	if c.peek() == '(' {
		c.i++
		if name, ok := c.quoted(); ok {
			return decl{kind: "test", name: name, block: body, inner: true}
		}
	}
	c.i = start
	return decl{}
}

// jsAssignment recognises CommonJS and prototype-style functions:
// module.exports = function …, exports.parse = (s) => …,
// Store.prototype.put = function (…) {…}.
func jsAssignment(c *cursor, top bool) decl {
	start := c.i
	path := constantPath(c, ".")
	if !strings.Contains(path, ".") || strings.HasPrefix(path, "this.") {
		c.i = start
		return decl{}
	}
	c.space()
	name := strings.TrimPrefix(strings.TrimPrefix(path, "module.exports."), "exports.")
	kind := "func"
	if strings.Contains(name, ".prototype.") {
		kind = "method"
	}
	return jsValue(c, '=', kind, name, top)
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

// oneOfCall consumes the first of words the rest starts with followed by
// ( or ., a call.
func (c *cursor) oneOfCall(words []string) (string, bool) {
	for _, w := range words {
		if c.at(w) {
			if next := c.peekAt(len(w)); next == '(' || next == '.' {
				c.i += len(w)
				return w, true
			}
		}
	}
	return "", false
}
