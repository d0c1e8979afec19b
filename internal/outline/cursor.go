package outline

import "bytes"

// cursor reads the words at the start of a line of code.
type cursor struct {
	b []byte
	i int
}

// at starts reading l at its first non-blank byte.
func at(l *line) cursor { return cursor{b: l.b, i: l.head} }

func (c *cursor) done() bool { return c.i >= len(c.b) }

func (c *cursor) peek() byte { return c.peekAt(0) }

// peekAt returns the byte n bytes ahead, or 0 past the end.
func (c *cursor) peekAt(n int) byte {
	if c.i+n < len(c.b) {
		return c.b[c.i+n]
	}
	return 0
}

// at reports whether the rest starts with s.
func (c *cursor) at(s string) bool { return hasPrefix(c.b[c.i:], s) }

// rest returns what is left of the line.
func (c *cursor) rest() []byte { return c.b[c.i:] }

// space skips blanks.
func (c *cursor) space() {
	b, i := c.b, c.i // locals: the loop would go through memory otherwise
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	c.i = i
}

// word consumes w and the blanks after it if the rest starts with w as a
// whole word.
func (c *cursor) word(w string) bool {
	if !c.at(w) || isIdent(c.peekAt(len(w))) {
		return false
	}
	c.i += len(w)
	c.space()
	return true
}

// oneOf consumes the first of words the rest starts with, as word does.
func (c *cursor) oneOf(words []string) (string, bool) {
	for _, w := range words {
		if c.word(w) {
			return w, true
		}
	}
	return "", false
}

// ident consumes an identifier and returns it ("" if there is none; an
// identifier does not start with a digit).
func (c *cursor) ident() string {
	return validName(c.identBytes())
}

func (c *cursor) identBytes() []byte {
	b, start := c.b, c.i
	if start >= len(b) || isDigit(b[start]) {
		return nil
	}
	i := start
	for i < len(b) && isIdent(b[i]) {
		i++
	}
	c.i = i
	return b[start:i]
}

// skip consumes a bracketed group starting at the cursor, open and close
// included, nested groups too. It reports false, at the end of the line,
// if the group does not close on it.
func (c *cursor) skip(open, close byte) bool {
	if c.peek() != open {
		return false
	}
	depth := 0
	for ; c.i < len(c.b); c.i++ {
		switch c.b[c.i] {
		case open:
			depth++
		case close:
			if depth--; depth == 0 {
				c.i++
				return true
			}
		}
	}
	return false
}

// quoted consumes a string literal in " or ' and returns its content.
func (c *cursor) quoted() (string, bool) {
	q := c.peek()
	if q != '"' && q != '\'' && q != '`' {
		return "", false
	}
	start := c.i + 1
	for c.i = start; c.i < len(c.b); c.i++ {
		switch c.b[c.i] {
		case '\\':
			c.i++
		case q:
			s := validName(c.b[start:c.i])
			c.i++
			return s, true
		}
	}
	c.i = len(c.b)
	return "", false
}

// typeParams skips the type parameters at the cursor, <…> or […], and
// returns how many braces they hold: in <T extends { id: string }>, the
// first { is not the declaration's block.
func (c *cursor) typeParams(open, close byte) int {
	start := c.i
	switch {
	case c.peek() != open:
		return 0
	case open == '<':
		skipAngles(c)
	default:
		c.skip(open, close)
	}
	return bytes.Count(c.b[start:c.i], []byte("{"))
}

// methodIn returns "method" if p is a declaration of one of the kinds,
// "func" otherwise.
func methodIn(p *block, kinds ...string) string {
	for _, k := range kinds {
		if p.kind == k {
			return "method"
		}
	}
	return "func"
}

// constantPath reads a name made of identifiers joined by sep: A::B, A.B.
func constantPath(c *cursor, sep string) string {
	start := c.i
	for {
		if len(c.identBytes()) == 0 {
			break
		}
		if !c.at(sep) || !isIdent(c.peekAt(len(sep))) {
			break
		}
		c.i += len(sep)
	}
	return validName(c.b[start:c.i])
}

// named reads the name of a declaration of the kind.
func named(c *cursor, kind string) decl {
	if name := c.ident(); name != "" {
		return decl{kind: kind, name: name}
	}
	return decl{}
}

// skipAnnotations skips @Annotation and @Annotation(…) (and use-site
// targets, @file:JvmName("x")).
func skipAnnotations(c *cursor) {
	for c.peek() == '@' && !c.at("@interface") {
		c.i++
		for len(c.identBytes()) > 0 && (c.peek() == '.' || c.peek() == ':') {
			c.i++
		}
		if c.peek() == '(' && !c.skip('(', ')') {
			return
		}
		c.space()
	}
}

// skipAngles skips a <…> group, where -> and => do not close it.
func skipAngles(c *cursor) bool {
	depth := 0
	for ; c.i < len(c.b); c.i++ {
		switch c.b[c.i] {
		case '<':
			depth++
		case '>':
			if c.i > 0 && (c.b[c.i-1] == '-' || c.b[c.i-1] == '=') {
				continue
			}
			if depth--; depth == 0 {
				c.i++
				return true
			}
		}
	}
	return false
}

// squash returns b trimmed, its runs of blanks made one space.
func squash(b []byte) string {
	out := make([]byte, 0, len(b))
	space := false
	for _, c := range b {
		if c == ' ' || c == '\t' {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, c)
	}
	return validName(out)
}
