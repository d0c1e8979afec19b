package outline

var rustLang = &language{
	syn:    &syntax{slash: true, nest: true, quotes: `"'`, multi: `"`, extra: lifetimes | rawR},
	layout: braced,
	decl:   rustDecl,
}

// rustDecl recognises fn (a method in an impl or a trait), struct, enum,
// union, trait, impl, mod, type and macro_rules!, with their attributes,
// visibility (pub(crate)…) and qualifiers (const, async, unsafe,
// extern "C"). Constants and statics are left out: they are values, not
// the shape of the code.
func rustDecl(s *scanner, l *line) decl {
	if s.openParens() > 0 {
		return decl{}
	}
	c := at(l)
	for c.at("#[") || c.at("#![") {
		c.i++
		if c.peek() == '!' {
			c.i++
		}
		if !c.skip('[', ']') {
			return decl{}
		}
		c.space()
	}
	for {
		word := c.identBytes()
		c.space()
		switch string(word) {
		case "pub":
			if c.peek() == '(' { // pub(crate), pub(in path)
				c.skip('(', ')')
				c.space()
			}
			continue
		case "default", "async", "unsafe", "auto":
			continue
		case "const":
			if c.at("fn ") || c.at("unsafe ") || c.at("async ") || c.at("extern ") {
				continue
			}
			return decl{} // a constant
		case "extern":
			if c.peek() == '"' {
				c.quoted()
				c.space()
			}
			if c.done() || c.peek() == '{' {
				return decl{block: members} // extern "C" { fn …; }
			}
			continue
		case "fn":
			if name := c.ident(); name != "" {
				return decl{kind: methodIn(s.parent(), "impl", "trait"), name: name, block: body}
			}
		case "struct":
			return rustNamed(&c, "struct", body)
		case "enum":
			return rustNamed(&c, "enum", body)
		case "union": // a contextual keyword: union(a, b) is a call
			d := rustNamed(&c, "union", body)
			if c.space(); c.peek() == '{' || c.peek() == '<' || c.done() {
				return d
			}
		case "trait":
			return rustNamed(&c, "trait", members)
		case "mod":
			return rustNamed(&c, "module", members)
		case "type":
			return rustNamed(&c, "type", plain)
		case "impl":
			if name := implName(&c); name != "" {
				return decl{kind: "impl", name: name, block: members}
			}
		case "macro_rules":
			if c.peek() == '!' {
				c.i++
				c.space()
				return rustNamed(&c, "macro", body)
			}
		}
		return decl{}
	}
}

func rustNamed(c *cursor, kind string, block role) decl {
	if name := c.ident(); name != "" {
		return decl{kind: kind, name: name, block: block}
	}
	return decl{}
}

// implName reads what an impl is for: "Store", "fmt::Display for Store",
// "<T: Clone> From<T> for Wrapper<T>" without the impl's own parameters.
func implName(c *cursor) string {
	if c.peek() == '<' && !skipAngles(c) {
		return ""
	}
	c.space()
	start, depth := c.i, 0
	for ; c.i < len(c.b); c.i++ {
		switch b := c.b[c.i]; {
		case b == '<':
			depth++
		case b == '>' && c.b[c.i-1] != '-':
			depth--
		case depth == 0 && (b == '{' || (b == 'w' && c.b[c.i-1] == ' ' && c.at("where") && !isIdent(c.peekAt(5)))):
			return squash(c.b[start:c.i])
		}
	}
	return squash(c.b[start:])
}
