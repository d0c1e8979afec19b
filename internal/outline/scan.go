package outline

import (
	"bytes"
	"iter"
	"slices"
	"sync"
)

// Limits that keep the work linear and the memory small on any input.
const (
	maxLex    = 16 << 10 // longer lines are not lexed: minified code, data blobs
	maxHead   = 1 << 10  // recognisers read at most this much of a line
	maxStack  = 256      // blocks kept on the stack; deeper ones are only counted
	maxWait   = 24       // lines a declaration may wait for its { or =>
	maxJoin   = 8        // lines joined into one signature
	maxLevels = 64       // preprocessor conditionals tracked
)

// layout is how a language marks its blocks, which is how the scanner
// knows what a line is nested in.
type layout uint8

const (
	// braced: blocks are {…}; the scanner keeps a stack of the open blocks
	// and of what each belongs to.
	braced layout = iota
	// indented: a block is what is indented below its first line (Python),
	// or ends with a keyword at that line's indentation (Ruby, Elixir, Lua);
	// the scanner keeps a stack of the declarations' indentations.
	indented
)

// directives says which lines are preprocessor directives, read apart
// from the code: C's conditionals must not unbalance the braces.
type directives uint8

const (
	noDirectives directives = iota
	cDirectives             // every line starting with # (C, C++, C#, Objective-C)
	ifDirectives            // #if, #elseif, #else, #endif only (Swift)
)

// language is how to outline one language.
type language struct {
	syn        *syntax
	layout     layout
	directives directives
	// decl recognises a declaration at the start of a line of code.
	decl func(s *scanner, l *line) decl
	// scan, when set, does everything instead, for formats that are read
	// line by line without a lexer (Markdown, Makefile…).
	scan func(src []byte) []Symbol

	once sync.Once
	tbl  [256]class // built on first use: see table
}

// decl is what a recogniser found at the start of a line.
type decl struct {
	kind, name string // what is declared; kind "" for nothing
	// The rest only matters in braced languages.
	block  role   // what the next block opened belongs to
	wait   wait   // what confirms the declaration
	inner  bool   // its block opens inside a parenthesis: describe("x", () => {
	ifAny  bool   // it only counts if its block declares something (an object literal's methods)
	prefix []byte // text to show before the line's: a return type on the line above
}

// found reports whether d declares something, or opens a block that
// matters (extern "C" {).
func (d decl) found() bool { return d.kind != "" || d.block != plain }

// role is what a block belongs to, which decides what its lines may
// declare.
type role uint8

const (
	plain   role = iota // if, for, an object literal, a lambda: declares nothing itself
	file                // the top level; never on the stack
	body                // a function's body, a struct's or an enum's
	members             // a class, interface, impl, namespace… whose lines declare members
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
}

// line is one line of code as the recognisers see it.
type line struct {
	b      []byte // the line, without its line break, cut to maxHead
	head   int    // index of its first non-blank byte (len(b) if blank)
	indent int    // width of its leading blanks, a tab counting to the next multiple of 8
}

func newLine(b []byte) line {
	l := line{b: b[:min(len(b), maxHead)]}
	for ; l.head < len(l.b); l.head++ {
		switch l.b[l.head] {
		case ' ':
			l.indent++
		case '\t':
			l.indent += 8 - l.indent%8
		default:
			return l
		}
	}
	return l
}

// scanner walks a file line by line, lexing each and asking the
// language's recogniser about the lines that start in code.
type scanner struct {
	lang   *language
	syn    *syntax
	tbl    *[256]class
	src    []byte
	header bool // a C or C++ header: prototypes count as declarations
	num    int  // current line number
	off    int  // offset in src of the current line
	line   line // current line

	lexer

	// Structure.
	parens   int     // open parentheses (indented: and brackets and braces)
	stack    []block // braced: open blocks; indented: declarations' levels
	overflow int     // braced: blocks opened beyond maxStack
	counted  int     // braced: blocks on the stack that belong to a declaration
	pend     pending
	held     bool   // heldSym waits for the verdict of its wait
	heldSym  Symbol //
	verdict  int8   // set while lexing a line: +1 confirms heldSym, -1 drops it
	bodyAt   int    // where on the line the pending declaration's block opened, or -1
	prev     [2]int // offsets in src of the code of the previous line of code, for K&R C return types

	// Preprocessor conditionals.
	conds    []cond
	condsOut int  // conditionals beyond maxLevels
	dead     int  // conditionals inside which lines are skipped: #if 0
	cont     bool // the previous directive ends with a backslash

	// The declaration whose text is being collected.
	join struct {
		on     bool
		target int // index in syms, or -1 for heldSym
		parens int // the signature ends when parens come back to this
		lines  int
		buf    []byte
	}

	goTypes bool // Go: inside a type ( … ) group

	syms []Symbol
}

// cond is an open #if.
type cond struct {
	dead   bool    // #if 0: its first branch is skipped
	stack  []block // the blocks open at #if, restored at #else
	parens int
}

// outline returns the declarations of src.
func (lang *language) outline(src []byte, header bool) []Symbol {
	if lang.scan != nil {
		return lang.scan(src)
	}
	s := &scanner{src: src, lang: lang, syn: lang.syn, tbl: lang.table(), header: header}
	s.join.target = -1
	if s.syn.extra&phpTags != 0 {
		// PHP starts as HTML, unless this is code without its opening tag.
		if t := bytes.TrimLeft(src, " \t\r\n"); len(t) > 0 && t[0] == '<' && !bytes.HasPrefix(t, []byte("<?")) {
			s.openBlock("<?")
		}
	}
	// The loop of lines, not the lines iterator: this one is the hot path.
	if bytes.HasPrefix(src, []byte("\ufeff")) {
		s.off = 3
	}
	for s.off < len(src) {
		end := len(src)
		if i := bytes.IndexByte(src[s.off:], '\n'); i >= 0 {
			end = s.off + i
		}
		b := src[s.off:end]
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
		s.num++
		s.scanLine(b)
		s.off = end + 1
	}
	s.finishJoin()
	return s.syms
}

// lines yields the lines of src with their 1-based numbers, without line
// breaks (LF or CRLF) or a leading byte order mark.
func lines(src []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		src = bytes.TrimPrefix(src, []byte("\ufeff"))
		for n := 1; len(src) > 0; n++ {
			b := src
			if i := bytes.IndexByte(src, '\n'); i >= 0 {
				b, src = src[:i], src[i+1:]
			} else {
				src = nil
			}
			if len(b) > 0 && b[len(b)-1] == '\r' {
				b = b[:len(b)-1]
			}
			if !yield(n, b) {
				return
			}
		}
	}
}

func (s *scanner) scanLine(b []byte) {
	if s.mode == inHeredoc {
		end, ok := s.heredocEnd(b)
		if !ok {
			return
		}
		s.mode = inCode
		s.lexLine(b[end:], 0)
		return
	}
	if s.lang.directives != noDirectives && s.mode == inCode && s.directive(b) {
		return
	}
	if s.dead > 0 {
		return
	}
	if s.pend.open && s.num-s.pend.line > maxWait {
		s.pend.open = false
		s.dropHeld()
	}
	s.line = newLine(b) // in the scanner: a local would escape to the heap through decl
	l := &s.line
	if s.mode == inCode && l.head < len(l.b) {
		if s.syn.extra&beginEnd != 0 && bytes.HasPrefix(b, []byte("=begin")) {
			s.mode, s.here, s.hereIndent = inHeredoc, "=end", false
			return
		}
		s.recognise(l)
	}
	s.lexLine(b, l.head)
}

// recognise asks the language whether l declares something.
func (s *scanner) recognise(l *line) {
	if s.lang.layout == indented {
		if s.syn.comment(l.b[l.head:]) {
			return
		}
		if s.parens > 0 {
			// Inside brackets: a continuation line. But a declaration at
			// the left margin means a bracket was misread (in a string
			// this lexer does not know): start afresh.
			if l.indent > 0 || !s.lang.decl(s, l).found() {
				return
			}
			s.parens = 0
		}
		// A line of code at an indentation ends the declarations at it
		// and deeper.
		for len(s.stack) > 0 && s.stack[len(s.stack)-1].indent >= l.indent {
			s.stack = s.stack[:len(s.stack)-1]
		}
	}
	if d := s.lang.decl(s, l); d.found() {
		s.declare(d, l)
	}
}

// lexLine lexes b, then collects its text for a declaration being joined
// and settles a declaration waiting for confirmation.
func (s *scanner) lexLine(b []byte, head int) {
	startsInCode := s.mode == inCode
	end := len(b)
	s.bodyAt = -1
	if len(b) <= maxLex {
		end = s.lex(b)
	}
	if s.bodyAt >= 0 && s.join.on {
		end = min(end, s.bodyAt) // func f() { return 1 }: the signature
	}
	for head < end && (b[head] == ' ' || b[head] == '\t') {
		head++
	}
	for end > head && (b[end-1] == ' ' || b[end-1] == '\t') {
		end--
	}
	if s.join.on {
		code := b[head:min(end, head+maxHead)]
		if buf := s.join.buf; len(buf) > 0 && len(code) > 0 && !opens(buf[len(buf)-1]) && !closes(code[0]) {
			s.join.buf = append(s.join.buf, ' ') // f(a, b), not f( a, b )
		}
		s.join.buf = append(s.join.buf, code...)
		s.join.lines++
		if s.parens <= s.join.parens || s.bodyAt >= 0 || s.join.lines >= maxJoin || len(s.join.buf) >= 4*MaxText {
			s.finishJoin()
		}
	}
	switch s.verdict {
	case +1:
		if s.held {
			s.held = false
			s.syms = append(s.syms, s.heldSym)
			if s.join.on && s.join.target < 0 {
				s.join.target = len(s.syms) - 1
			}
		}
	case -1:
		s.dropHeld()
	}
	s.verdict = 0
	if startsInCode && end > head {
		s.prev = [2]int{s.off + head, s.off + end}
	}
}

// prevCode returns the code of the previous line of code.
func (s *scanner) prevCode() []byte { return s.src[s.prev[0]:s.prev[1]] }

// declare records what a recogniser found.
func (s *scanner) declare(d decl, l *line) {
	s.finishJoin()
	s.dropHeld()
	sym := Symbol{Line: s.num, Kind: d.kind, Name: d.name}
	if s.lang.layout == indented {
		if d.kind == "" {
			return
		}
		sym.Depth = len(s.stack)
		if len(s.stack) < maxStack {
			s.stack = append(s.stack, block{kind: d.kind, name: d.name, indent: l.indent})
		}
	} else {
		sym.Depth = s.counted
		s.pend.open = false
		if d.block != plain || d.wait != now {
			s.pend = pending{
				open:   true,
				blk:    block{role: d.block, kind: d.kind, name: d.name, counted: d.kind != "", ifAny: d.ifAny, sym: len(s.syms)},
				wait:   d.wait,
				parens: s.parens,
				height: s.height(),
				line:   s.num,
			}
			if d.inner {
				s.pend.parens++
			}
		}
		if d.kind == "" {
			return
		}
	}
	s.join.on, s.join.target, s.join.parens, s.join.lines = true, -1, s.parens, 0
	s.join.buf = append(s.join.buf[:0], d.prefix...)
	if d.wait == now {
		s.syms = append(s.syms, sym)
		s.join.target = len(s.syms) - 1
	} else {
		s.held, s.heldSym = true, sym
	}
}

func opens(c byte) bool  { return c == '(' || c == '[' || c == '{' || c == '<' }
func closes(c byte) bool { return c == ')' || c == ']' || c == '}' || c == '>' }

// finishJoin gives the declaration being joined its text.
func (s *scanner) finishJoin() {
	if !s.join.on {
		return
	}
	s.join.on = false
	text := cleanText(s.join.buf, s.lang.layout == braced)
	if s.join.target >= 0 {
		s.syms[s.join.target].Text = text
	} else if s.held {
		s.heldSym.Text = text
	}
}

// dropHeld forgets a declaration that was not confirmed.
func (s *scanner) dropHeld() {
	if !s.held {
		return
	}
	s.held = false
	if s.join.on && s.join.target < 0 {
		s.join.on = false
	}
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
		p.open = false
		if p.wait == arrow {
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

// directive reads a preprocessor line; it reports whether b is one, or
// the continuation of one.
func (s *scanner) directive(b []byte) bool {
	if s.cont {
		s.cont = bytes.HasSuffix(b, []byte(`\`))
		return true
	}
	c := cursor{b: b[:min(len(b), maxHead)]}
	c.space()
	if !c.at("#") {
		return false
	}
	c.i++
	c.space()
	switch word := c.ident(); word {
	case "if", "ifdef", "ifndef":
		if s.condsOut > 0 || len(s.conds) >= maxLevels {
			s.condsOut++
			break
		}
		c.space()
		dead := word == "if" && c.at("0") && !isIdent(c.peekAt(1))
		if dead {
			s.dead++
		}
		s.conds = append(s.conds, cond{dead: dead, stack: slices.Clone(s.stack), parens: s.parens})
	case "elif", "elifdef", "elifndef", "else", "elseif":
		if s.condsOut > 0 || len(s.conds) == 0 {
			break
		}
		// Each branch starts where the first did: branches that open a
		// function's brace each (#ifdef A / int f(a) { / #else / int
		// f(a, b) { / #endif) leave one open, not two.
		c := &s.conds[len(s.conds)-1]
		if c.dead {
			c.dead = false
			s.dead--
		}
		s.restore(c.stack, c.parens)
	case "endif":
		switch {
		case s.condsOut > 0:
			s.condsOut--
		case len(s.conds) > 0:
			if s.conds[len(s.conds)-1].dead {
				s.dead--
			}
			s.conds = s.conds[:len(s.conds)-1]
		}
	default:
		if s.lang.directives == ifDirectives {
			return false // Swift: #Preview { … }, #selector(…) are code
		}
	}
	s.cont = bytes.HasSuffix(b, []byte(`\`))
	return true
}

// restore puts the block stack back as it was.
func (s *scanner) restore(stack []block, parens int) {
	s.stack = append(s.stack[:0], stack...)
	s.overflow, s.parens, s.counted = 0, parens, 0
	for _, b := range s.stack {
		if b.counted {
			s.counted++
		}
	}
	s.pend.open = false
	s.dropHeld()
}
