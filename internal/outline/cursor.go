package outline

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
	for c.i < len(c.b) && (c.b[c.i] == ' ' || c.b[c.i] == '\t') {
		c.i++
	}
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
	start := c.i
	if c.done() || isDigit(c.b[c.i]) {
		return nil
	}
	for c.i < len(c.b) && isIdent(c.b[c.i]) {
		c.i++
	}
	return c.b[start:c.i]
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

// skipTo advances to the next b, and reports whether there is one.
func (c *cursor) skipTo(b byte) bool {
	for ; c.i < len(c.b); c.i++ {
		if c.b[c.i] == b {
			return true
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
