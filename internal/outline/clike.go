package outline

import (
	"bytes"
	"strings"
)

// The C family: C, C++, Java, C#, Dart, Groovy. Their functions and
// methods have no keyword: a declaration is a type, a name and a
// parenthesis, which a call or a variable can look like too. So they are
// only looked for where a call cannot be: directly in a class body, at
// top level or in a namespace. And there, in C and C++ source files, a
// function counts only if its { comes before a ; (a definition, not a
// prototype or a macro call).

// clike describes one language of the family.
type clike struct {
	mods     []string // words before a declaration that do not change what it is
	types    []string // keywords that declare a type
	topFuncs bool     // functions may be declared outside a type (C, C++, Dart, Groovy)
	bareTop  bool     // … even without a return type (Dart's main() {, Groovy's scripts)
	cpp      bool     // templates, operators, A::b names, K&R return types, prototypes in headers
	dotCtor  bool     // named constructors: Point.origin() (Dart)
	attr     byte     // what opens an attribute: '@' or '['
}

var (
	cLang = &language{
		syn:        &syntax{slash: true, quotes: `"'`, extra: cppRaw | digitSep},
		layout:     braced,
		flat:       true,
		directives: cDirectives,
		decl:       func(s *scanner, l *line) decl { return cRules.decl(s, l) },
	}
	cRules = &clike{
		mods: []string{"static", "inline", "extern", "const", "volatile", "register", "virtual", "explicit", "friend",
			"constexpr", "consteval", "constinit", "mutable", "thread_local", "typename", "typedef",
			"__inline", "__inline__", "__forceinline", "_Noreturn", "__extension__", "__declspec", "__attribute__", "alignas", "__global__", "__device__", "__host__"},
		types:    []string{"class", "struct", "union", "enum", "namespace"},
		topFuncs: true,
		cpp:      true,
		attr:     '[',
	}

	javaLang = &language{
		syn:    &syntax{slash: true, quotes: `"'`, triple: true},
		layout: braced,
		flat:   true,
		decl:   func(s *scanner, l *line) decl { return javaRules.decl(s, l) },
	}
	javaRules = &clike{
		mods:  []string{"public", "protected", "private", "static", "final", "abstract", "synchronized", "native", "transient", "volatile", "strictfp", "default", "sealed", "non-sealed"},
		types: []string{"class", "interface", "enum", "record", "@interface"},
		attr:  '@',
	}

	groovyLang = &language{
		syn:    &syntax{slash: true, quotes: `"'`, triple: true},
		layout: braced,
		flat:   true,
		decl:   func(s *scanner, l *line) decl { return groovyRules.decl(s, l) },
	}
	groovyRules = &clike{
		mods:     javaRules.mods,
		types:    []string{"class", "interface", "enum", "trait", "record", "@interface"},
		topFuncs: true,
		attr:     '@',
	}

	csharpLang = &language{
		syn:        &syntax{slash: true, quotes: `"'`, triple: true, extra: verbatim},
		layout:     braced,
		flat:       true,
		directives: cDirectives,
		decl:       func(s *scanner, l *line) decl { return csharpRules.decl(s, l) },
	}
	csharpRules = &clike{
		mods: []string{"public", "private", "protected", "internal", "static", "readonly", "sealed", "abstract", "virtual",
			"override", "async", "extern", "unsafe", "new", "partial", "volatile", "required", "file", "ref", "fixed"},
		types: []string{"class", "struct", "interface", "enum", "record", "namespace"},
		attr:  '[',
	}

	dartLang = &language{
		syn:    &syntax{slash: true, nest: true, quotes: `"'`, triple: true},
		layout: braced,
		flat:   true,
		decl:   func(s *scanner, l *line) decl { return dartRules.decl(s, l) },
	}
	dartRules = &clike{
		mods:     []string{"static", "final", "const", "abstract", "external", "factory", "late", "covariant", "sealed", "base", "interface"},
		types:    []string{"class", "mixin", "enum", "extension"},
		topFuncs: true,
		bareTop:  true,
		dotCtor:  true,
		attr:     '@',
	}
)

// controlWords start statements and expressions that look like
// declarations: if (…) {, return f(x);, new Foo(…).
var controlWords = map[string]bool{
	"if": true, "else": true, "for": true, "foreach": true, "while": true, "do": true, "switch": true, "case": true,
	"return": true, "throw": true, "new": true, "delete": true, "catch": true, "try": true, "finally": true,
	"sizeof": true, "alignof": true, "typeof": true, "decltype": true, "defined": true, "goto": true,
	"using": true, "static_assert": true, "_Static_assert": true, "assert": true, "await": true, "yield": true,
	"co_await": true, "co_yield": true, "co_return": true, "lock": true, "synchronized": true, "when": true,
	"super": true, "this": true, "with": true, "import": true, "package": true, "var": true, "let": true,
	"operator": true, "in": true, "is": true, "as": true, "not": true, "and": true, "or": true, "elif": true,
}

// gtestMacros declare GoogleTest tests: TEST(Suite, Name) {.
var gtestMacros = map[string]bool{"TEST": true, "TEST_F": true, "TEST_P": true, "TYPED_TEST": true, "TYPED_TEST_P": true}

// decl recognises a type by its keyword, and a function or a method by
// its shape, where a declaration can be: at top level, in a namespace or
// extern "C", or directly in a type's body.
func (r *clike) decl(s *scanner, l *line) decl {
	if s.openParens() > 0 {
		return decl{}
	}
	p := s.parent()
	inType := p.role == members && p.kind != "namespace" && p.kind != ""
	if !inType && p.role != file && p.role != members {
		return decl{} // inside a function: statements
	}
	c := at(l)
	if !r.attributes(&c) {
		return decl{}
	}
	if r.cpp && c.word("template") {
		if c.peek() == '<' && !skipAngles(&c) {
			return decl{}
		}
		c.space()
		if c.done() {
			return decl{} // the declaration is on the next line
		}
	}
	if r.cpp && c.at(`extern "`) {
		c.word("extern")
		c.quoted()
		c.space()
		if c.done() || c.peek() == '{' {
			return decl{block: members} // extern "C" {: its lines are top level
		}
	}
	typedef := false
	for {
		m, ok := c.oneOf(r.mods)
		if !ok {
			break
		}
		typedef = typedef || m == "typedef"
		if c.peek() == '(' { // __attribute__((…)), __declspec(…), alignas(…)
			if !c.skip('(', ')') {
				return decl{}
			}
			c.space()
		}
	}
	afterMods := c.i
	if kw, ok := c.oneOf(r.types); ok {
		if d, ok := r.typeDecl(&c, kw); ok {
			return d
		}
		c.i = afterMods // struct stat *lookup(…): a function
	}
	if typedef {
		return decl{}
	}
	return r.function(s, &c, p, inType)
}

// attributes skips the attributes and annotations before a declaration:
// @Override, @GetMapping("/x"), [HttpGet("{id}")], [[nodiscard]]. It
// reports false if nothing follows them on the line.
func (r *clike) attributes(c *cursor) bool {
	for {
		switch {
		case r.attr == '@' && c.peek() == '@' && !c.at("@interface"):
			skipAnnotations(c)
		case r.attr == '[' && c.peek() == '[' && (!r.cpp || c.at("[[")):
			if !c.skip('[', ']') {
				return false
			}
			c.space()
		default:
			return !c.done()
		}
	}
}

// typeDecl reads a class, struct, interface… after its keyword. It
// reports false if the keyword starts something else: struct stat *f(…).
func (r *clike) typeDecl(c *cursor, kw string) (decl, bool) {
	kind := kw
	switch kw {
	case "enum":
		if !c.word("class") {
			c.word("struct")
		}
	case "record":
		kind = "class"
		if c.word("struct") {
			kind = "struct"
		} else {
			c.word("class")
		}
	case "@interface":
		kind = "interface"
	case "mixin":
		kind = "class"
		c.word("class") // Dart 3's mixin class
	}
	r.attributes(c)
	var name string
	if kind == "namespace" && !r.cpp {
		name = constantPath(c, ".") // C#'s namespace Acme.Api
	} else {
		name = c.ident()
	}
	// In C++, the last identifier of a run: class EXPORT_API Store final.
	for r.cpp && name != "" {
		if c.at("::") {
			c.i += 2
		} else {
			c.space()
		}
		next := c.identBytes()
		if len(next) == 0 || string(next) == "final" {
			break
		}
		name = validName(next)
	}
	c.space()
	if r.cpp && name != "" {
		switch c.peek() {
		case 0, '{', ':', ';', '<':
		default:
			return decl{}, false // a function returning struct name, or a variable
		}
	}
	if name == "" {
		if kind == "namespace" {
			return decl{block: members}, true // an anonymous namespace
		}
		return decl{}, true // typedef struct {, an anonymous union
	}
	d := decl{kind: kind, name: name, block: members}
	if r.cpp && kind != "namespace" {
		d.wait = brace // class Store; declares nothing
	}
	return d, true
}

// function recognises a function or method declaration: a return type (or
// not, for constructors), a name, a (.
func (r *clike) function(s *scanner, c *cursor, p *block, inType bool) decl {
	if !inType && !r.topFuncs {
		return decl{}
	}
	if q := c.peek(); !isIdent(q) && q != '~' && q != '<' || isDigit(q) {
		return decl{} // : a(x), b(y) {, and the like
	}
	rest := c.rest()
	open := bytes.IndexByte(rest, '(')
	if open <= 0 {
		return decl{}
	}
	name, before := r.splitName(rest[:open])
	if name == "" {
		return decl{}
	}
	base := name[strings.LastIndexAny(name, ":.")+1:]
	if controlWords[base] && !strings.HasPrefix(name, "operator") || controlWords[firstWord(before)] {
		return decl{}
	}
	if len(before) > 0 {
		if !typeLike(before) {
			return decl{} // a = f(…), x + f(…)
		}
		if last := before[len(before)-1]; last == '.' || last == '>' && len(before) > 1 && before[len(before)-2] == '-' {
			return decl{} // obj.f(…), p->f(…)
		}
	}
	d := decl{kind: "func", name: name, block: body}
	if inType {
		d.kind = "method"
	}
	if r.cpp && !inType && !s.header {
		d.wait = brace
	}
	if len(bytes.TrimSpace(before)) > 0 {
		return d
	}
	// No return type: a constructor, an out-of-class definition, a K&R
	// function whose type is on the line above, or a test macro.
	switch {
	case inType && (base == p.name || base == "~"+p.name):
		return d
	case r.dotCtor && inType && strings.HasPrefix(name, p.name+"."):
		return d
	case r.cpp && strings.Contains(name, "::"):
		return d
	case r.cpp && gtestMacros[name]:
		if args := testArgs(rest[open:]); args != "" {
			return decl{kind: "test", name: args, block: body, wait: brace}
		}
	case r.cpp && !inType && knrType(s.prevCode()):
		d.prefix, d.wait = s.prevCode(), brace
		return d
	case r.bareTop && !inType:
		d.wait = brace
		return d
	}
	return decl{}
}

// splitName splits what comes before a declaration's ( into the name and
// what precedes it (the return type, for a function).
func (r *clike) splitName(pre []byte) (name string, before []byte) {
	pre = bytes.TrimRight(pre, " \t")
	if r.cpp || r.attr == '[' { // C++ and C# overload operators
		if i := lastWordIndex(pre, "operator"); i >= 0 {
			start := qualifierStart(pre, i)
			return squash(pre[start:]), pre[:start]
		}
	}
	end := len(pre)
	if end > 0 && pre[end-1] == '>' { // Foo<T>(…): a generic method, a specialisation
		depth := 0
		for end--; end >= 0; end-- {
			if pre[end] == '>' {
				depth++
			} else if pre[end] == '<' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if end <= 0 {
			return "", nil
		}
	}
	start := end
	for start > 0 {
		b := pre[start-1]
		switch {
		case isIdent(b), b == '~':
			start--
		case b == ':' && start > 1 && pre[start-2] == ':' && r.cpp:
			start -= 2
		case b == '.' && r.dotCtor:
			start--
		default:
			return validName(pre[start:end]), pre[:start]
		}
	}
	return validName(pre[start:end]), pre[:start]
}

// lastWordIndex returns the index of the last whole word w in b, or -1.
func lastWordIndex(b []byte, w string) int {
	i := bytes.LastIndex(b, []byte(w))
	if i < 0 || (i > 0 && isIdent(b[i-1])) || (i+len(w) < len(b) && isIdent(b[i+len(w)])) {
		return -1
	}
	return i
}

// qualifierStart returns where the qualified name ending at b[i:] starts:
// Store::operator== starts at Store.
func qualifierStart(b []byte, i int) int {
	for i >= 2 && b[i-1] == ':' && b[i-2] == ':' {
		j := i - 2
		for j > 0 && isIdent(b[j-1]) {
			j--
		}
		i = j
	}
	return i
}

// typeLike reports whether b can be a return type with its qualifiers:
// unsigned long, const std::vector<int>&, public static <T> List<T>,
// Map<String, ?>, int[].
func typeLike(b []byte) bool {
	for _, c := range b {
		if !isIdent(c) && strings.IndexByte(" \t*&<>,:[]?.@~^", c) < 0 {
			return false
		}
	}
	return true
}

func firstWord(b []byte) string {
	c := cursor{b: b}
	c.space()
	return string(c.identBytes())
}

// knrType reports whether prev, the line above, can be a return type
// alone: static int, struct node *, const char *.
func knrType(prev []byte) bool {
	if len(prev) == 0 || !typeLike(prev) || controlWords[firstWord(prev)] {
		return false
	}
	switch prev[len(prev)-1] {
	case ':', ',', '>', '.':
		return false
	}
	return isIdent(prev[0])
}

// testArgs reads GoogleTest's (Suite, Name) as "Suite.Name".
func testArgs(b []byte) string {
	end := bytes.IndexByte(b, ')')
	if end < 0 {
		return ""
	}
	parts := bytes.Split(b[1:end], []byte(","))
	if len(parts) != 2 {
		return ""
	}
	return squash(parts[0]) + "." + squash(parts[1])
}
