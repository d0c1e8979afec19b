package outline

import "strings"

// Braced languages that declare everything with a keyword (fun, func,
// function, class…): their declarations count at any depth.

var kotlinLang = &language{
	syn:    &syntax{slash: true, nest: true, quotes: `"'`, triple: true},
	layout: braced,
	decl:   kotlinDecl,
}

var kotlinMods = []string{"public", "private", "protected", "internal", "open", "abstract", "final", "override", "sealed",
	"data", "enum", "annotation", "inner", "value", "inline", "noinline", "crossinline", "suspend", "tailrec",
	"operator", "infix", "external", "expect", "actual", "lateinit", "const", "companion"}

// kotlinClasses are the declarations whose funs are methods.
var kotlinClasses = []string{"class", "interface", "object", "enum"}

// kotlinDecl recognises fun (with generics and receivers: fun <T>
// List<T>.second()), class, interface, object, companion object,
// typealias and secondary constructors.
func kotlinDecl(s *scanner, l *line) decl {
	if s.openParens() > 0 {
		return decl{}
	}
	c := at(l)
	skipAnnotations(&c)
	enum, companion := false, false
	for {
		m, ok := c.oneOf(kotlinMods)
		if !ok {
			break
		}
		enum = enum || m == "enum"
		companion = companion || m == "companion"
	}
	p := s.parent()
	switch {
	case c.word("fun"):
		if c.word("interface") {
			return kotlinNamed(&c, "interface")
		}
		if c.peek() == '<' && !skipAngles(&c) {
			return decl{}
		}
		c.space()
		if name := kotlinFunName(&c); name != "" {
			return decl{kind: methodIn(p, kotlinClasses...), name: name, block: body}
		}
	case c.word("class"):
		if enum {
			return kotlinNamed(&c, "enum")
		}
		return kotlinNamed(&c, "class")
	case c.word("interface"):
		return kotlinNamed(&c, "interface")
	case c.word("object"):
		if d := kotlinNamed(&c, "object"); d.found() {
			return d
		}
		if companion {
			return decl{kind: "object", name: "Companion", block: members}
		}
	case c.word("typealias"):
		if name := c.ident(); name != "" {
			return decl{kind: "type", name: name}
		}
	case c.at("constructor(") || c.word("constructor"):
		if p.role == members {
			return decl{kind: "method", name: "constructor", block: body}
		}
	}
	return decl{}
}

func kotlinNamed(c *cursor, kind string) decl {
	name := c.ident()
	if name == "" && c.peek() == '`' {
		name, _ = c.quoted()
	}
	if name == "" {
		return decl{}
	}
	return decl{kind: kind, name: name, block: members}
}

// kotlinFunName reads a function's name, after its receiver if it has
// one: List<T>.second gives second; `returns 404 when missing` is a name.
func kotlinFunName(c *cursor) string {
	name, depth := "", 0
	for !c.done() {
		switch b := c.peek(); {
		case b == '`':
			name, _ = c.quoted()
			continue
		case b == '<':
			depth++
		case b == '>':
			depth--
		case b == '(' && depth == 0, b == ' ' && depth == 0, b == ':' && depth == 0:
			return name
		case b == '.' && depth == 0:
			name = ""
		case isIdent(b) && depth == 0:
			name = c.ident()
			continue
		}
		c.i++
	}
	return name
}

var swiftLang = &language{
	syn:        &syntax{slash: true, nest: true, quotes: `"`, triple: true, extra: rawHash},
	layout:     braced,
	directives: ifDirectives,
	decl:       swiftDecl,
}

var swiftMods = []string{"public", "private", "fileprivate", "internal", "open", "final", "static", "override", "mutating",
	"nonmutating", "convenience", "required", "lazy", "dynamic", "optional", "indirect", "prefix", "postfix", "infix",
	"weak", "unowned", "nonisolated", "isolated", "distributed", "package", "consuming", "borrowing"}

var swiftTypes = []string{"class", "struct", "enum", "protocol", "extension", "actor"}

// swiftDecl recognises func, init, deinit, subscript, class, struct,
// enum, protocol, extension, actor and typealias, after attributes
// (@MainActor, @available(…)) and modifiers (private(set), class func).
func swiftDecl(s *scanner, l *line) decl {
	if s.openParens() > 0 {
		return decl{}
	}
	c := at(l)
	skipAnnotations(&c)
	for {
		if _, ok := c.oneOf(swiftMods); ok {
			if c.peek() == '(' { // private(set)
				c.skip('(', ')')
				c.space()
			}
			continue
		}
		// class func, class var: class is a modifier there.
		if c.at("class ") {
			save := c.i
			c.word("class")
			if c.at("func ") || c.at("var ") || c.at("let ") || c.at("subscript") || c.at("override ") || c.at("final ") {
				continue
			}
			c.i = save
		}
		break
	}
	kind := methodIn(s.parent(), swiftTypes...)
	switch {
	case c.word("func"):
		name := c.ident()
		if name == "" { // an operator: func == (lhs: T, rhs: T)
			start := c.i
			for !c.done() && strings.IndexByte(" \t(<", c.peek()) < 0 {
				c.i++
			}
			name = validName(c.b[start:c.i])
		}
		if name != "" {
			return decl{kind: kind, name: name, block: body}
		}
	case c.at("init") && strings.IndexByte("(?!<", c.peekAt(4)) >= 0 && c.peekAt(4) != 0:
		return decl{kind: "method", name: "init", block: body}
	case c.word("deinit"):
		return decl{kind: "method", name: "deinit", block: body}
	case c.word("subscript"), c.at("subscript("):
		return decl{kind: "method", name: "subscript", block: body}
	case c.word("typealias"):
		if name := c.ident(); name != "" {
			return decl{kind: "type", name: name}
		}
	default:
		if kw, ok := c.oneOf(swiftTypes); ok {
			if name := constantPath(&c, "."); name != "" {
				return decl{kind: kw, name: name, block: members}
			}
		}
	}
	return decl{}
}

var phpLang = &language{
	syn:    &syntax{slash: true, hash: hashNotAttr, quotes: "\"'`", multi: "\"'`", here: phpHeredoc, extra: phpTags},
	layout: braced,
	decl:   phpDecl,
}

var phpMods = []string{"public", "private", "protected", "static", "abstract", "final", "readonly"}

// phpDecl recognises function (a method in a class, interface, trait or
// enum), class, interface, trait, enum and namespace.
func phpDecl(s *scanner, l *line) decl {
	if s.openParens() > 0 {
		return decl{}
	}
	c := at(l)
	for c.at("#[") {
		c.i++
		if !c.skip('[', ']') {
			return decl{}
		}
		c.space()
	}
	for {
		if _, ok := c.oneOf(phpMods); !ok {
			break
		}
	}
	switch {
	case c.word("function"):
		if c.peek() == '&' {
			c.i++
			c.space()
		}
		if name := c.ident(); name != "" {
			return decl{kind: methodIn(s.parent(), "class", "interface", "trait", "enum"), name: name, block: body}
		}
	case c.word("class"):
		return phpNamed(&c, "class")
	case c.word("interface"):
		return phpNamed(&c, "interface")
	case c.word("trait"):
		return phpNamed(&c, "trait")
	case c.word("enum"):
		return phpNamed(&c, "enum")
	case c.word("namespace"):
		start := c.i
		for !c.done() && (isIdent(c.peek()) || c.peek() == '\\') {
			c.i++
		}
		if c.i > start {
			return decl{kind: "namespace", name: validName(c.b[start:c.i]), block: members}
		}
	}
	return decl{}
}

func phpNamed(c *cursor, kind string) decl {
	if name := c.ident(); name != "" {
		return decl{kind: kind, name: name, block: members}
	}
	return decl{}
}
