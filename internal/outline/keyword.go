package outline

import "strings"

// Braced languages that declare everything with a keyword (fun, func,
// function, class…): their declarations count at any depth.

var kotlinLang = &language{
	syn:    &syntax{slash: true, nest: true, quotes: `"'`, triple: true},
	layout: braced,
	decl:   kotlinDecl,
}

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
		word := c.identBytes()
		c.space()
		switch string(word) {
		case "public", "private", "protected", "internal", "open", "abstract", "final", "override", "sealed",
			"data", "annotation", "inner", "value", "inline", "noinline", "crossinline", "suspend", "tailrec",
			"operator", "infix", "external", "expect", "actual", "lateinit", "const":
			continue
		case "enum":
			enum = true
			continue
		case "companion":
			companion = true
			continue
		case "fun":
			if c.word("interface") {
				return kotlinNamed(&c, "interface")
			}
			if c.peek() == '<' && !skipAngles(&c) {
				return decl{}
			}
			c.space()
			if name := kotlinFunName(&c); name != "" {
				return decl{kind: methodIn(s.parent(), "class", "interface", "object", "enum"), name: name, block: body}
			}
		case "class":
			if enum {
				return kotlinNamed(&c, "enum")
			}
			return kotlinNamed(&c, "class")
		case "interface":
			return kotlinNamed(&c, "interface")
		case "object":
			if d := kotlinNamed(&c, "object"); d.found() {
				return d
			}
			if companion {
				return decl{kind: "object", name: "Companion", block: members}
			}
		case "typealias":
			if name := c.ident(); name != "" {
				return decl{kind: "type", name: name}
			}
		case "constructor":
			if s.parent().role == members {
				return decl{kind: "method", name: "constructor", block: body}
			}
		}
		return decl{}
	}
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
			if id := c.ident(); id != "" { // not at a digit: ident reads nothing there
				name = id
				continue
			}
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
		start := c.i
		word := c.identBytes()
		c.space()
		switch w := string(word); w {
		case "public", "private", "fileprivate", "internal", "open", "final", "static", "override", "mutating",
			"nonmutating", "convenience", "required", "lazy", "dynamic", "optional", "indirect", "prefix", "postfix",
			"infix", "weak", "unowned", "nonisolated", "isolated", "distributed", "package", "consuming", "borrowing":
			if c.peek() == '(' { // private(set)
				c.skip('(', ')')
				c.space()
			}
			continue
		case "func":
			name := c.ident()
			if name == "" { // an operator: func == (lhs: T, rhs: T)
				start := c.i
				for !c.done() && strings.IndexByte(" \t(<", c.peek()) < 0 {
					c.i++
				}
				name = validName(c.b[start:c.i])
			}
			if name != "" {
				return decl{kind: methodIn(s.parent(), swiftTypes...), name: name, block: body}
			}
		case "init":
			if c.i == start+len(w) && strings.IndexByte("(?!<", c.peek()) >= 0 {
				return decl{kind: "method", name: "init", block: body}
			}
		case "deinit", "subscript":
			return decl{kind: "method", name: w, block: body}
		case "typealias":
			if name := c.ident(); name != "" {
				return decl{kind: "type", name: name}
			}
		case "class", "struct", "enum", "protocol", "extension", "actor":
			if w == "class" && (c.at("func ") || c.at("var ") || c.at("let ") || c.at("subscript") || c.at("override ") || c.at("final ")) {
				continue // class func: class is a modifier there
			}
			if name := constantPath(&c, "."); name != "" {
				return decl{kind: w, name: name, block: members}
			}
		}
		return decl{}
	}
}

var swiftTypes = []string{"class", "struct", "enum", "protocol", "extension", "actor"}

var phpLang = &language{
	syn:    &syntax{slash: true, hash: hashNotAttr, quotes: "\"'`", multi: "\"'`", here: phpHeredoc, extra: phpTags},
	layout: braced,
	decl:   phpDecl,
}

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
		word := c.identBytes()
		c.space()
		switch w := string(word); w {
		case "public", "private", "protected", "static", "abstract", "final", "readonly":
			continue
		case "function":
			if c.peek() == '&' {
				c.i++
				c.space()
			}
			if name := c.ident(); name != "" {
				return decl{kind: methodIn(s.parent(), "class", "interface", "trait", "enum"), name: name, block: body}
			}
		case "class", "interface", "trait", "enum":
			if name := c.ident(); name != "" {
				return decl{kind: w, name: name, block: members}
			}
		case "namespace":
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
}
