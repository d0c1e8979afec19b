package outline

var goLang = &language{
	syn:    &syntax{slash: true, quotes: "\"'`", multi: "`", raw: "`"},
	layout: braced,
	flat:   true,
	decl:   goDecl,
	top: func(b []byte) bool {
		return hasPrefix(b, "func ") || hasPrefix(b, "func(") || hasPrefix(b, "type ")
	},
}

// goDecl recognises Go's declarations: funcs, methods and types at top
// level (with the types of a type ( … ) group), and the methods of an
// interface. gofmt makes Go regular enough that reading lines is as good
// as parsing here, and many times faster.
func goDecl(s *scanner, l *line) decl {
	c := at(l)
	p := s.parent()
	switch {
	case p.role == file && s.parens == 0:
		s.goTypes = false
		switch {
		case c.word("func"):
			return goFunc(&c)
		case c.word("type"):
			if c.peek() == '(' {
				s.goTypes = true
				return decl{}
			}
			return goType(&c)
		}
	case p.role == file && s.parens == 1 && s.goTypes:
		return goType(&c)
	case p.kind == "interface" && s.openParens() == 0:
		// Embedded interfaces and type sets have no (.
		if name := c.ident(); name != "" && c.peek() == '(' {
			return decl{kind: "method", name: name}
		}
	}
	return decl{}
}

// goFunc reads what follows func: a receiver for a method, the name.
func goFunc(c *cursor) decl {
	kind := "func"
	if c.peek() == '(' {
		if !c.skip('(', ')') {
			return decl{}
		}
		c.space()
		kind = "method"
	}
	name := c.ident()
	if name == "" {
		return decl{}
	}
	return decl{kind: kind, name: name, block: body}
}

// goType reads a type spec: List[T any] struct, Reader interface, ID string.
func goType(c *cursor) decl {
	name := c.ident()
	if name == "" {
		return decl{}
	}
	// Type parameters; an array type has a blank first: A [4]int.
	skip := c.typeParams('[', ']')
	c.space()
	if c.peek() == '=' {
		c.i++
		c.space()
	}
	switch {
	case c.word("struct"):
		return decl{kind: "struct", name: name, block: body, skip: skip}
	case c.word("interface"):
		return decl{kind: "interface", name: name, block: members, skip: skip}
	}
	return decl{kind: "type", name: name}
}
