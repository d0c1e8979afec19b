package outline

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// syntax is what the lexer needs to know of a language to tell code from
// comments and strings, which may look like code: a def in a docstring, a
// { in a format string.
type syntax struct {
	slash  bool     // // line comments, /* */ block comments
	nest   bool     // block comments nest (Rust, Swift, Kotlin, Scala, Dart)
	hash   hashRule // what # starts
	dashes bool     // -- line comments (Lua, SQL)
	quotes string   // the bytes that open a string
	multi  string   // of those, the ones whose strings may go on past the end of a line
	raw    string   // of those, the ones whose strings have no backslash escapes
	triple bool     // """ and ''' open strings that end with the same three quotes
	here   heredoc  // how heredocs open
	// braceBlocks: in an indented language, {…} are blocks (Scala 2,
	// shell functions), not brackets inside which lines continue a line.
	braceBlocks bool
	extra       feature // the language's own quirks
}

type hashRule uint8

const (
	hashCode    hashRule = iota // # is code
	hashComment                 // # starts a comment
	hashWord                    // # starts a comment at the start of a word (shell: $#, ${#a} are code)
	hashNotAttr                 // # starts a comment, #[ an attribute (PHP 8)
)

type heredoc uint8

const (
	noHeredoc   heredoc = iota
	shHeredoc           // <<EOF, <<-EOF, << 'EOF'; not <<< (a here-string)
	rubyHeredoc         // <<~EOS, <<-EOS, <<EOS
	phpHeredoc          // <<<EOT, <<<'EOT'
)

type feature uint16

const (
	lifetimes    feature = 1 << iota // 'a is a lifetime (Rust) or a symbol (Scala), 'a' a character
	rawR                             // r"…", r#"…"# are raw (Rust)
	rawHash                          // #"…"# is raw (Swift)
	cppRaw                           // R"delim(…)delim" (C++)
	digitSep                         // 1'000'000 (C++14)
	verbatim                         // @"…" is raw, "" is a quote in it (C#); """…""" raw strings
	regex                            // /…/ after an operator is a regular expression (JavaScript)
	arrows                           // => is reported (JavaScript's arrow functions)
	shellWords                       // \ escapes the next byte; $'…' has escapes
	sigils                           // ~r/…/, ~H"""…""" sigils and ?c characters (Elixir)
	longBrackets                     // [[…]], [==[…]==], --[[…]] (Lua)
	dollarQuotes                     // $$…$$ and $tag$…$tag$ (PostgreSQL)
	phpTags                          // what is outside <?php … ?> is not PHP
	beginEnd                         // =begin … =end comments (Ruby)
)

// comment reports whether b, the start of a line of code, is a comment.
func (syn *syntax) comment(b []byte) bool {
	switch {
	case syn.hash != hashCode && b[0] == '#':
		return syn.hash != hashNotAttr || !hasPrefix(b, "#[")
	case syn.slash && hasPrefix(b, "//"), syn.slash && hasPrefix(b, "/*"):
		return true
	case syn.dashes && hasPrefix(b, "--"):
		return true
	}
	return false
}

// class is what a byte can mean to the lexer in code, per language.
type class uint8

const (
	cPlain class = iota // nothing: most bytes
	cSlash
	cHash
	cDash
	cQuote
	cOpen  // ( [ {
	cClose // ) ] }
	cSemi
	cEquals
	cBackslash
	cLess
	cTilde
	cQuestion
	cDollar
)

// table returns the classes of bytes in lang's code, built on first use
// rather than at start-up: most processes never outline.
func (lang *language) table() *[256]class {
	lang.once.Do(func() {
		t, syn := &lang.tbl, lang.syn
		if syn.slash || syn.extra&regex != 0 {
			t['/'] = cSlash
		}
		if syn.hash != hashCode {
			t['#'] = cHash
		}
		if syn.dashes {
			t['-'] = cDash
		}
		for i := range len(syn.quotes) {
			t[syn.quotes[i]] = cQuote
		}
		t['('], t[')'] = cOpen, cClose
		switch {
		case lang.layout == braced:
			t['{'], t['}'] = cOpen, cClose
			t[';'] = cSemi
		case syn.braceBlocks:
			t['['], t[']'] = cOpen, cClose
		default: // braces are brackets too: Python's dicts, Elixir's maps
			t['{'], t['}'] = cOpen, cClose
			t['['], t[']'] = cOpen, cClose
		}
		if syn.extra&arrows != 0 {
			t['='] = cEquals
		}
		if syn.extra&shellWords != 0 {
			t['\\'] = cBackslash
		}
		if syn.here != noHeredoc {
			t['<'] = cLess
		}
		if syn.extra&sigils != 0 {
			t['~'], t['?'] = cTilde, cQuestion
		}
		if syn.extra&phpTags != 0 {
			t['?'] = cQuestion
		}
		if syn.extra&dollarQuotes != 0 {
			t['$'] = cDollar
		}
	})
	return &lang.tbl
}

// mode is where the lexer is at the end of a line.
type mode uint8

const (
	inCode mode = iota
	inBlock
	inString
	inHeredoc
)

// lexer is the lexical state carried from line to line.
type lexer struct {
	mode   mode
	close  string // what ends the comment or string
	esc    bool   // inString: a backslash escapes the next byte
	multi  bool   // inString: the string may go on past the end of the line
	dbl    bool   // inString: the closing quote twice is a quote (C#'s @"")
	escEOL bool   // inString: the line ends with a backslash, which continues the string
	nest   int    // inBlock: depth of nested comments

	here       string // inHeredoc, or pending at the end of this line: its terminator
	hereIndent bool   // the terminator may be indented
}

func (s *scanner) openBlock(close string) {
	s.mode, s.close, s.nest = inBlock, close, 1
}

func (s *scanner) openString(close string, esc, multi bool) {
	s.mode, s.close, s.esc, s.multi, s.dbl = inString, close, esc, multi, false
}

// lex follows one line through comments, strings and brackets, and
// returns where a line comment starts on it (len(b) if none).
func (s *scanner) lex(b []byte) int {
	tbl, syn := s.tbl, s.syn
	i, fails := 0, 0 // fails: slashes that looked like regular expressions and were not
scan:
	for i < len(b) {
		switch s.mode {
		case inBlock:
			i = s.lexBlock(b, i)
			continue
		case inString:
			i = s.lexString(b, i)
			continue
		}
		// Most bytes mean nothing to the lexer: skip them four at a time.
		for ; i+4 <= len(b); i += 4 {
			if w := b[i : i+4 : i+4]; tbl[w[0]]|tbl[w[1]]|tbl[w[2]]|tbl[w[3]] != cPlain {
				break
			}
		}
		for i < len(b) && tbl[b[i]] == cPlain {
			i++
		}
		if i == len(b) {
			break
		}
		c := b[i]
		switch tbl[c] {
		case cSlash:
			if syn.slash && i+1 < len(b) {
				if b[i+1] == '/' {
					s.endLine()
					return i
				}
				if b[i+1] == '*' {
					s.openBlock("*/")
					i += 2
					continue
				}
			}
			if syn.extra&regex != 0 && fails < maxRegexFails && regexAllowed(b, i) {
				if end := regexEnd(b, i); end > 0 {
					i = end
					continue
				}
				fails++
			}
		case cHash:
			switch {
			case syn.hash == hashWord && i > 0 && !strings.ContainsRune(" \t;&|()", rune(b[i-1])):
			case syn.hash == hashNotAttr && i+1 < len(b) && b[i+1] == '[':
			default:
				break scan
			}
		case cDash:
			if i+1 < len(b) && b[i+1] == '-' {
				if syn.extra&longBrackets != 0 {
					if n, ok := longBracket(b[i+2:]); ok {
						s.openBlock(longClose(n))
						i += 2 + n + 2
						continue
					}
				}
				break scan
			}
		case cQuote:
			i = s.quote(b, i)
			continue
		case cOpen:
			switch {
			case c == '{' && s.lang.layout == braced:
				if s.openBrace() && s.bodyAt < 0 {
					s.bodyAt = i
				}
			case c == '[' && syn.extra&longBrackets != 0:
				if n, ok := longBracket(b[i:]); ok {
					s.openString(longClose(n), false, true)
					i += n + 2
					continue
				}
				s.parens++
			default:
				s.parens++
			}
		case cClose:
			switch {
			case c == '}' && s.lang.layout == braced:
				s.closeBrace()
			case s.lang.layout == braced:
				s.closeParen()
			case s.parens > 0:
				s.parens--
			}
		case cSemi:
			s.semicolon()
		case cEquals:
			if i+1 < len(b) && b[i+1] == '>' {
				s.arrowSeen()
				i++
			}
		case cBackslash:
			i++
		case cLess:
			i = s.heredocOpen(b, i)
			continue
		case cTilde:
			i = s.sigil(b, i)
			continue
		case cQuestion:
			switch {
			case syn.extra&sigils != 0 && (i == 0 || !isIdent(b[i-1])) && i+1 < len(b):
				// An Elixir character: ?a, ?", ?\n.
				i++
				if b[i] == '\\' {
					i++
				}
			case syn.extra&phpTags != 0 && i+1 < len(b) && b[i+1] == '>':
				s.openBlock("<?")
				i++
			}
		case cDollar:
			i = s.dollarQuote(b, i)
			continue
		}
		i++
	}
	s.endLine()
	return min(i, len(b))
}

// endLine ends what cannot go on past the line, and starts a heredoc
// opened on it.
func (s *scanner) endLine() {
	if s.mode == inString && !s.multi && !s.escEOL {
		s.mode = inCode
	}
	s.escEOL = false
	if s.here != "" && s.mode == inCode {
		s.mode = inHeredoc
	}
}

func (s *scanner) lexBlock(b []byte, i int) int {
	if s.syn.nest && s.close == "*/" {
		for ; i+1 < len(b); i++ {
			switch {
			case b[i] == '/' && b[i+1] == '*':
				s.nest++
				i++
			case b[i] == '*' && b[i+1] == '/':
				i++
				if s.nest--; s.nest == 0 {
					s.mode = inCode
					return i + 1
				}
			}
		}
		return len(b)
	}
	j := index(b[i:], s.close)
	if j < 0 {
		return len(b)
	}
	s.mode = inCode
	return i + j + len(s.close)
}

func (s *scanner) lexString(b []byte, i int) int {
	close, c0 := s.close, s.close[0]
	for i < len(b) {
		j := bytes.IndexByte(b[i:], c0)
		if j < 0 {
			if s.esc && endsEscaped(b[i:]) {
				s.escEOL = true // "…\ and the string goes on on the next line
			}
			return len(b)
		}
		if s.esc {
			if k := bytes.IndexByte(b[i:i+j], '\\'); k >= 0 {
				i += k + 2 // past the escaped byte, which may be the quote
				continue
			}
		}
		i += j
		if hasPrefix(b[i:], close) {
			if s.dbl && i+1 < len(b) && b[i+1] == c0 { // "" in @"…"
				i += 2
				continue
			}
			s.mode = inCode
			return i + len(close)
		}
		i++
	}
	return len(b)
}

// endsEscaped reports whether b ends with a backslash that escapes the
// line break: an odd number of them.
func endsEscaped(b []byte) bool {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// quote opens the string starting at b[i], a quote, and returns where its
// content starts, or where lexing goes on if it is not a string after all.
func (s *scanner) quote(b []byte, i int) int {
	syn, q := s.syn, b[i]
	if syn.triple && i+2 < len(b) && b[i+1] == q && b[i+2] == q {
		close := tripleStrings[q]
		if syn.extra&verbatim != 0 { // C#'s raw strings: """, """", …
			n := 3
			for i+n < len(b) && b[i+n] == q {
				n++
			}
			close = string(b[i : i+n])
		}
		s.openString(close, syn.extra&verbatim == 0, true)
		return i + len(close)
	}
	esc := strings.IndexByte(syn.raw, q) < 0
	multi := strings.IndexByte(syn.multi, q) >= 0
	switch {
	case q == '\'' && syn.extra&lifetimes != 0 && !charLiteral(b, i):
		return i + 1 // 'a: a lifetime, or a Scala symbol
	case q == '\'' && syn.extra&digitSep != 0 && i > 0 && isDigit(b[i-1]):
		return i + 1 // 1'000
	case q == '\'' && syn.extra&shellWords != 0 && i > 0 && b[i-1] == '$':
		esc = true // $'…'
	case q == '"' && syn.extra&(rawR|rawHash) != 0:
		if close, ok := rawString(b, i, syn.extra&rawR != 0); ok {
			s.openString(close, false, true)
			return i + 1
		}
	case q == '"' && syn.extra&cppRaw != 0 && i > 0 && b[i-1] == 'R' && (i == 1 || !isIdent(b[i-2]) || strings.IndexByte("uUL8", b[i-2]) >= 0):
		// R"delim( … )delim"
		if open := bytes.IndexByte(b[i+1:min(len(b), i+18)], '('); open >= 0 {
			s.openString(")"+string(b[i+1:i+1+open])+`"`, false, true)
			return i + open + 2
		}
	case q == '"' && syn.extra&verbatim != 0 && i > 0 && (b[i-1] == '@' || b[i-1] == '$' && i > 1 && b[i-2] == '@'):
		s.openString(`"`, false, true)
		s.dbl = true
		return i + 1
	}
	s.openString(quoteStrings[q], esc, multi)
	return i + 1
}

// quoteStrings and tripleStrings are closing quotes, not to allocate them.
var (
	quoteStrings  = [256]string{'"': `"`, '\'': `'`, '`': "`"}
	tripleStrings = [256]string{'"': `"""`, '\'': `'''`, '`': "```"}
)

// charLiteral reports whether the ' at b[i] opens a character literal
// ('a', '\n', 'é') rather than a lifetime or a symbol ('a, 'static).
func charLiteral(b []byte, i int) bool {
	if i+1 >= len(b) {
		return false
	}
	if b[i+1] == '\\' {
		return true
	}
	_, size := utf8.DecodeRune(b[i+1:])
	j := i + 1 + size
	return j < len(b) && b[j] == '\''
}

// rawString looks behind the " at b[i] for a raw string's opening: r" or
// r#" in Rust (withR), #" in Swift. It returns the closing delimiter.
func rawString(b []byte, i int, withR bool) (string, bool) {
	j := i
	for j > 0 && b[j-1] == '#' && i-j < maxHashes {
		j--
	}
	hashes := i - j
	if withR {
		if j == 0 || b[j-1] != 'r' {
			return "", false
		}
		j-- // the r, maybe after a b (br"…")
		if j > 0 && b[j-1] == 'b' {
			j--
		}
	} else if hashes == 0 {
		return "", false
	}
	if j > 0 && isIdent(b[j-1]) {
		return "", false // an identifier ending in r: for"…" is not raw
	}
	return `"` + strings.Repeat("#", hashes), true
}

// Bounds on what the lexer looks at around a byte, so that no line costs
// more than linear time, whatever it holds.
const (
	maxRegex      = 256 // a regular expression's length
	maxRegexFails = 4   // slashes per line tried as regular expressions in vain
	maxHashes     = 32  // the #s of a raw string's delimiter
)

// regexAllowed reports whether a / at b[i] can start a regular expression
// rather than divide: after an operator, a bracket or a keyword like
// return, or at the line's start.
func regexAllowed(b []byte, i int) bool {
	j := i - 1
	for j >= 0 && (b[j] == ' ' || b[j] == '\t') {
		j--
	}
	if j < 0 || strings.IndexByte("(,=:[!&|?{};+-*%<>~^", b[j]) >= 0 {
		return true
	}
	k := j
	for k >= 0 && isIdent(b[k]) {
		k--
	}
	switch string(b[k+1 : j+1]) {
	case "return", "typeof", "case", "in", "of", "delete", "void", "throw", "yield", "await", "else", "do", "instanceof":
		return true
	}
	return false
}

// regexEnd returns the index after the regular expression starting at b[i],
// or -1 if it does not end on the line within maxRegex bytes: a / that
// starts no regular expression must not cost a scan of the whole line.
func regexEnd(b []byte, i int) int {
	inClass := false
	for j := i + 1; j < min(len(b), i+maxRegex); j++ {
		switch b[j] {
		case '\\':
			j++
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				return j + 1
			}
		}
	}
	return -1
}

// longBracket reports whether b starts a Lua long bracket, [[ or [==[, and
// with how many =.
func longBracket(b []byte) (int, bool) {
	if len(b) == 0 || b[0] != '[' {
		return 0, false
	}
	n := 1
	for n < len(b) && b[n] == '=' {
		n++
	}
	return n - 1, n < len(b) && b[n] == '['
}

func longClose(n int) string { return "]" + strings.Repeat("=", n) + "]" }

// heredocOpen notes a heredoc opening at b[i], a <, whose body starts on
// the next line.
func (s *scanner) heredocOpen(b []byte, i int) int {
	if !hasPrefix(b[i:], "<<") {
		return i + 1
	}
	j, indent := i+2, false
	switch s.syn.here {
	case shHeredoc:
		if hasPrefix(b[j:], "<") {
			return j + 1 // <<< is a here-string
		}
		if hasPrefix(b[j:], "-") {
			j, indent = j+1, true
		}
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
	case rubyHeredoc:
		if j < len(b) && (b[j] == '~' || b[j] == '-') {
			j, indent = j+1, true
		}
	case phpHeredoc:
		if !hasPrefix(b[j:], "<") {
			return j
		}
		j, indent = j+1, true
		for j < len(b) && b[j] == ' ' {
			j++
		}
	}
	quoted := j < len(b) && strings.IndexByte(`'"\`+"`", b[j]) >= 0
	if quoted {
		j++
	}
	start := j
	for j < len(b) && isIdent(b[j]) {
		j++
	}
	word := b[start:j]
	switch {
	case len(word) == 0, isDigit(word[0]):
		return start // a shift: x << 2
	case s.syn.here == rubyHeredoc && !indent && !quoted && !(word[0] >= 'A' && word[0] <= 'Z'):
		return start // a << b, not a heredoc
	}
	if s.here == "" { // a second heredoc on the line is read as code
		s.here, s.hereIndent = string(word), indent || s.syn.here == phpHeredoc
	}
	return j
}

// heredocEnd reports whether b ends the heredoc, and where the code after
// its terminator starts (PHP's EOT;).
func (s *scanner) heredocEnd(b []byte) (int, bool) {
	i := 0
	if s.hereIndent {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
	}
	j := i + len(s.here)
	if !hasPrefix(b[i:], s.here) || j < len(b) && isIdent(b[j]) {
		return 0, false
	}
	s.here = ""
	return j, true
}

// sigil opens an Elixir sigil at b[i], a ~: ~r/…/, ~s(…), ~H"""…""".
func (s *scanner) sigil(b []byte, i int) int {
	j := i + 1
	for j < len(b) && (b[j]|0x20 >= 'a' && b[j]|0x20 <= 'z') {
		j++
	}
	if j == i+1 || j >= len(b) {
		return i + 1
	}
	d := b[j]
	if (d == '"' || d == '\'') && hasPrefix(b[j:], string([]byte{d, d, d})) {
		s.openString(string([]byte{d, d, d}), true, true)
		return j + 3
	}
	if k := strings.IndexByte(`([{</|"'`, d); k >= 0 {
		s.openString(`)]}>/|"'`[k:k+1], true, true)
		return j + 1
	}
	return i + 1
}

// dollarQuote opens a PostgreSQL dollar-quoted string at b[i], a $: $$ or
// $tag$ (but not $1).
func (s *scanner) dollarQuote(b []byte, i int) int {
	j := i + 1
	for j < len(b) && isIdent(b[j]) && b[j] != '$' {
		j++
	}
	if j < len(b) && b[j] == '$' && (j == i+1 || !isDigit(b[i+1])) {
		s.openString(string(b[i:j+1]), false, true)
		return j + 1
	}
	return i + 1
}

// index is bytes.Index for a string, without converting it.
func index(b []byte, sub string) int {
	for i := 0; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], sub[0])
		if j < 0 {
			return -1
		}
		i += j
		if hasPrefix(b[i:], sub) {
			return i
		}
	}
	return -1
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isIdent reports whether c can be part of an identifier: ASCII letters,
// digits, _ and $, and every byte of a multi-byte UTF-8 character.
func isIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' || c == '$' || c >= 0x80
}
