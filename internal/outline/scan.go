package outline

import (
	"bytes"
	"encoding/binary"
	"iter"
	"sync"
)

// How a file is read: line by line, in one pass. For each line,
//
//   - a preprocessor directive is handled apart (directives.go);
//   - if the line starts in code, the language's recogniser reads its first
//     words, knowing what block the line is in (blocks.go), and may declare
//     something: a Symbol, or in braced languages a block about to open;
//   - the lexer (lex.go) follows the line through comments, strings and
//     brackets, which tells what the next line starts in, opens and closes
//     blocks, and confirms or drops the declarations that wait for a { or
//     a =>;
//   - the line's code is added to the text of a declaration being read, if
//     its signature spreads over several lines.
//
// Recognisers are one function per language or family: golang.go, js.go,
// rust.go, clike.go (C, C++, Java, C#, Dart, Groovy), keyword.go (Kotlin,
// Swift, PHP), indented.go (Python, Ruby, Elixir, Lua, shell, Scala,
// SQL). text.go and generic.go read their formats without the lexer.

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

// language is how to outline one language.
type language struct {
	syn        *syntax
	layout     layout
	directives directives
	// flat: nothing is declared inside a function's body (Go, the C
	// family), so the lines there, most lines, are only lexed.
	flat bool
	// decl recognises a declaration at the start of a line of code.
	decl func(s *scanner, l *line) decl
	// top, when set, reports whether a line of code that starts at the
	// left margin can only be at top level (Go's func, JavaScript's
	// export): if blocks are open there, a brace was misread, and the
	// scanner starts afresh rather than lose the rest of the file.
	top func(b []byte) bool
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
	skip   int    // braces before its block's: interface Repo<T extends { id: string }> {
	prefix []byte // text to show before the line's: a return type on the line above
}

// found reports whether d declares something, or opens a block that
// matters (extern "C" {).
func (d decl) found() bool { return d.kind != "" || d.block != plain }

// line is one line of code as the recognisers see it.
type line struct {
	b      []byte // the line, without its line break, cut to maxHead
	head   int    // index of its first non-blank byte (len(b) if blank)
	indent int    // width of its leading blanks, a tab counting to the next multiple of 8
}

const eightBlanks = 0x2020202020202020

// newLine measures the indentation of b, eight blanks at a time where it
// can: Python's and Elixir's lines are deeply indented.
func newLine(b []byte) line {
	l := line{b: b[:min(len(b), maxHead)]}
	for l.head+8 <= len(l.b) && binary.LittleEndian.Uint64(l.b[l.head:]) == eightBlanks {
		l.head += 8
		l.indent += 8
	}
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
	parens   int     // open parentheses (indented: brackets of any kind, except braces that are blocks)
	stack    []block // braced: open blocks; indented: declarations' levels
	overflow int     // braced: blocks opened beyond maxStack
	counted  int     // braced: blocks on the stack that belong to a declaration
	pend     pending
	held     bool // heldSym waits for the verdict of its wait
	heldSym  Symbol
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
		s.lexLine(b[end:], -1) // what follows the terminator: EOT; in PHP
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
	if len(b) > 0 && b[0] > ' ' && s.lang.top != nil && s.mode == inCode && (s.height() > 0 || s.parens > 0) && s.lang.top(b) {
		s.restore(nil, 0)
	}
	if s.mode != inCode || s.lang.flat && s.parent().role < members {
		// In a comment, a string or a function's body: nothing to recognise.
		s.lexLine(b, -1)
		return
	}
	s.line = newLine(b) // in the scanner: a local would escape to the heap through decl
	l := &s.line
	if l.head < len(l.b) {
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
	startsInCode := s.mode == inCode && head >= 0
	head = max(head, 0)
	end := len(b)
	s.bodyAt = -1
	if len(b) <= maxLex {
		end = s.lex(b)
	}
	if s.bodyAt >= 0 && s.join.on {
		end = min(end, s.bodyAt) // func f() { return 1 }: the signature
	}
	for end > head && (b[end-1] == ' ' || b[end-1] == '\t') {
		end--
	}
	if s.join.on {
		for head < end && (b[head] == ' ' || b[head] == '\t') {
			head++
		}
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
	switch {
	case startsInCode && end > head:
		s.prev = [2]int{s.off + head, s.off + end}
	case !startsInCode:
		s.prev = [2]int{} // not a return type for the next line
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
				skip:   d.skip,
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
