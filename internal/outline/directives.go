package outline

import (
	"bytes"
	"slices"
)

// directives says which lines are preprocessor directives, read apart
// from the code: C's conditionals must not unbalance the braces.
type directives uint8

const (
	noDirectives directives = iota
	cDirectives             // every line starting with # (C, C++, C#, Objective-C)
	ifDirectives            // #if, #elseif, #else, #endif only (Swift)
)

// cond is an open #if.
type cond struct {
	dead   bool    // #if 0: its first branch is skipped
	stack  []block // the blocks open at #if, restored at #else
	saved  bool    // stack holds them: not for deep stacks
	parens int
}

// maxSaved is the deepest block stack saved at an #if.
const maxSaved = 16

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
	switch word := string(c.identBytes()); word {
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
		// The blocks are saved for #else; deep stacks (there are none in
		// real C at an #if) are not, to keep #if cheap.
		var saved []block
		if len(s.stack) <= maxSaved {
			saved = slices.Clone(s.stack)
		}
		s.conds = append(s.conds, cond{dead: dead, stack: saved, saved: saved != nil, parens: s.parens})
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
		if c.saved {
			s.restore(c.stack, c.parens)
		}
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

// restore puts the block stack back as it was (nil: no block open).
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
