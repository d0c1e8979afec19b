package outline

// How the scanner follows nesting: in braced languages, a stack of the
// open blocks and of what each belongs to, and the block a declaration
// is about to open; in indented ones, the same stack holds the levels of
// the declarations above the current line.

// role is what a block belongs to, which decides what its lines may
// declare.
type role uint8

const (
	plain   role = iota // if, for, an object literal, a lambda: declares nothing itself
	body                // a function's body, a struct's or an enum's
	members             // a class, interface, impl, namespace… whose lines declare members
	file                // the top level; never on the stack
)

// wait is what a declaration in a braced language needs to see before it
// counts.
type wait uint8

const (
	now   wait = iota // nothing: it counts at once
	brace             // its { before a ; (C definitions, not prototypes or calls)
	arrow             // a => before a { or ; (const f = (a) => …, not const o = {…})
)

// block is an open block in a braced language, or a declaration's level
// in an indented one.
type block struct {
	role       role
	kind, name string // of the declaration it belongs to
	counted    bool   // it belongs to a declaration: what it holds is one level deeper
	parens     int    // parentheses open when it opened
	indent     int    // indented: the declaration's indentation
	ifAny      bool   // the declaration is dropped if the block declares nothing
	sym        int    // the declaration's index in syms
}

// pending is the block a braced declaration is about to open: the next {
// at its parenthesis depth and stack height is its own.
type pending struct {
	open           bool
	blk            block
	wait           wait
	parens, height int
	line           int
	skip           int // braces to let pass first
}

// parent is the block a line is directly in: a block on the stack, or the
// file. It must not be modified.
func (s *scanner) parent() *block {
	switch {
	case s.overflow > 0:
		return &plainBlock
	case len(s.stack) > 0:
		return &s.stack[len(s.stack)-1]
	}
	return &fileBlock
}

var plainBlock, fileBlock = block{}, block{role: file}

// height is the number of open blocks.
func (s *scanner) height() int { return len(s.stack) + s.overflow }

// openParens is the number of parentheses open since the innermost block
// opened: 0 for a line directly in the block.
func (s *scanner) openParens() int {
	if s.lang.layout == braced && len(s.stack) > 0 && s.overflow == 0 {
		return s.parens - s.stack[len(s.stack)-1].parens
	}
	return s.parens
}

// The lexer's events in a braced language.

// openBrace opens a block; it reports whether the block is the pending
// declaration's.
func (s *scanner) openBrace() bool {
	blk, own := block{}, false
	if p := &s.pend; p.open && s.parens == p.parens && s.height() == p.height {
		if p.skip > 0 {
			p.skip--
		} else if p.open = false; p.wait == arrow {
			s.verdict = -1 // const o = { … }: an object, not a function
		} else {
			blk, own = p.blk, true
			if p.wait == brace {
				s.verdict = +1
			}
		}
	}
	blk.parens = s.parens
	if s.overflow > 0 || len(s.stack) >= maxStack {
		s.overflow++
		return own
	}
	s.stack = append(s.stack, blk)
	if blk.counted {
		s.counted++
	}
	return own
}

func (s *scanner) closeBrace() {
	switch {
	case s.overflow > 0:
		s.overflow--
	case len(s.stack) > 0:
		top := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		if top.counted {
			s.counted--
		}
		s.parens = top.parens // resynchronise after anything misread inside
		if top.ifAny && top.sym == len(s.syms)-1 {
			s.syms = s.syms[:top.sym] // an object literal without methods
			if s.join.on && s.join.target == top.sym {
				s.join.on = false
			}
		}
	default:
		return // a } with nothing open
	}
	if s.pend.open && s.height() < s.pend.height {
		s.settle()
	}
}

func (s *scanner) closeParen() {
	if s.parens > 0 {
		s.parens--
	}
	if s.pend.open && s.parens < s.pend.parens {
		s.settle()
	}
}

func (s *scanner) semicolon() {
	if p := &s.pend; p.open && s.parens == p.parens && s.height() == p.height {
		s.settle()
	}
}

func (s *scanner) arrowSeen() {
	if p := &s.pend; p.open && p.wait == arrow && s.parens == p.parens && s.height() == p.height {
		p.wait = now
		s.verdict = +1
	}
}

// settle closes the pending block before it opened: a declaration still
// waiting is not one.
func (s *scanner) settle() {
	s.pend.open = false
	if s.pend.wait != now {
		s.verdict = -1
	}
}
