// Package shell reads a command line as bash would, with the parser behind
// shfmt (mvdan.cc/sh/v3/syntax), into what ctxkeep reasons about: the
// simple commands it runs — program and words, leading assignments
// (FOO=1) and redirections (2>&1, >out, <in, here-documents) set aside —
// and where each runs: in a pipeline, a list (&&, ||, ;), a subshell, a
// brace group, the body of an if, a loop, a case or a function, a command
// or process substitution, or the text an eval reads.
//
// A line that does not parse (an unclosed quote, a here-document without
// its end, a stray `;;`) is reported as such, and callers take the safe
// side with it: not trivial, not wrapped, nothing learned. Nothing here
// runs or expands anything: a word with an expansion ($HOME, $(…)) is kept
// as written and marked as not literal.
package shell

import (
	"errors"
	"strings"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"
)

// Line is a command line read by Read. It is shared between the callers
// that read the same line and must not be changed.
type Line struct {
	// Commands are the line's simple commands, in the order they run
	// (a command substitution before the command whose words hold it),
	// those of the bodies of if, loops, case and functions included.
	Commands []Command
	// Background: a job is left running when the line ends (`cmd &`,
	// coproc), wherever it is, a subshell included.
	Background bool
	// Functions are the names of the functions the line declares.
	Functions []string
}

// Command is one simple command.
type Command struct {
	// Args are its words, quotes and escapes removed ('go' "test" → go
	// test); a word with an expansion ($X, ${X:-y}, $(…), $'…' with an
	// escape) is kept as written and is not Literal. An assignment
	// before the program and the redirections are not words.
	Args    []string
	dynamic []bool // Args[i] is not literal; nil when all are

	// Piped: it reads the output of the command before it in a pipeline
	// (every stage but the first, and the commands of a group that is one).
	Piped bool
	// Child: it runs in a child of the shell that runs the line — a
	// subshell (…), a command or process substitution, a pipeline's stage
	// but the last — so it can neither end that shell nor change its
	// state (exit, cd, set).
	Child bool
	// Substituted: its output is read by the shell ($(…), `…`, <(…),
	// >(…)) rather than printed.
	Substituted bool
	// InFunction: it is in the body of a function the line declares, and
	// runs when (if) the function is called.
	InFunction bool
	// Opaque: an eval whose words are not all literal, or do not parse:
	// what it runs is known only when it runs. A literal eval's text is
	// read, and its commands follow it in Commands.
	Opaque bool
}

// Literal reports whether Args[i] is a literal word: what the program
// gets is the text of Args[i].
func (c *Command) Literal(i int) bool {
	return i < len(c.Args) && (c.dynamic == nil || !c.dynamic[i])
}

// Program is the index in Args of the program that runs, past the
// commands that only run another one (sudo, env, nice, nohup, time,
// timeout N, xargs, stdbuf, command, builtin) and their options:
// `timeout 300 go test ./...` runs go. len(Args) when there is none
// (`env` alone).
func (c *Command) Program() int {
	i := 0
	for i < len(c.Args) && c.Literal(i) {
		n := prefixWords(c.Args[i:])
		if n == 0 {
			break
		}
		i += n
	}
	return min(i, len(c.Args))
}

// Run is Args from the program on (see Program).
func (c *Command) Run() []string { return c.Args[c.Program():] }

// MaxLine is the longest command line Read reads; a longer one is
// reported as not read (ErrTooLong).
const MaxLine = 1 << 20

// maxEval bounds evals read within evals.
const maxEval = 4

// MaxDepth bounds how deep a line's brackets nest, counted on its text
// (quotes not understood): the parser descends once per level, and real
// command lines nest a few levels, not hundreds.
const MaxDepth = 500

// ErrTooLong is Read's error for a line over MaxLine bytes.
var ErrTooLong = errors.New("shell: command line too long to read")

// ErrTooDeep is Read's error for a line whose brackets nest over MaxDepth.
var ErrTooDeep = errors.New("shell: command line nests too deep to read")

// ErrNUL is Read's error for a line holding a NUL byte, which bash would
// read only up to it.
var ErrNUL = errors.New("shell: command line holds a NUL byte")

// read is the last line Read read: the hook asks several questions of one
// command (is it wrapped, does it run a test runner, was it learned), and
// each parses it once this way.
type read struct {
	src  string
	line *Line
	err  error
}

var last atomic.Pointer[read]

// Read parses a command line in bash's dialect. The error says why it does
// not parse (a syntax.ParseError, ErrTooLong, ErrTooDeep, ErrNUL); the
// Line is then nil.
func Read(src string) (*Line, error) {
	if r := last.Load(); r != nil && r.src == src {
		return r.line, r.err
	}
	l, err := readLine(src)
	last.Store(&read{src: src, line: l, err: err})
	return l, err
}

func readLine(src string) (*Line, error) {
	switch {
	case len(src) > MaxLine:
		return nil, ErrTooLong
	case strings.IndexByte(src, 0) >= 0:
		return nil, ErrNUL
	case depth(src) > MaxDepth:
		return nil, ErrTooDeep
	}
	f, err := parse(src)
	if err != nil {
		return nil, err
	}
	w := &walker{line: &Line{}}
	w.file(src, f, ctx{})
	return w.line, nil
}

// depth is how deep ( and { nest in src, read as plain text.
func depth(src string) int {
	d, most := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{':
			d++
			most = max(most, d)
		case ')', '}':
			d = max(d-1, 0)
		}
	}
	return most
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// ctx is where a statement runs.
type ctx struct {
	piped, child, subst, fn bool
	evals                   int // evals read to get here
}

type walker struct {
	line *Line
}

// file walks a parsed text; src is that text (the line, or an eval's),
// which the tree's offsets point into.
func (w *walker) file(src string, f *syntax.File, c ctx) {
	for _, s := range f.Stmts {
		w.stmt(src, s, c)
	}
}

func (w *walker) stmts(src string, ss []*syntax.Stmt, c ctx) {
	for _, s := range ss {
		w.stmt(src, s, c)
	}
}

func (w *walker) stmt(src string, s *syntax.Stmt, c ctx) {
	if s == nil {
		return
	}
	if s.Background || s.Coprocess || s.Disown {
		w.line.Background = true
	}
	for _, r := range s.Redirs {
		w.words(src, c, r.Word, r.Hdoc)
	}
	switch x := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		w.call(src, x, c)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			left, right := c, c
			left.child = true // every stage but the last runs in a child
			right.piped = true
			w.stmt(src, x.X, left)
			w.stmt(src, x.Y, right)
			return
		}
		w.stmt(src, x.X, c)
		w.stmt(src, x.Y, c)
	case *syntax.Subshell:
		c.child = true
		w.stmts(src, x.Stmts, c)
	case *syntax.Block:
		w.stmts(src, x.Stmts, c)
	case *syntax.IfClause:
		for ic := x; ic != nil; ic = ic.Else {
			w.stmts(src, ic.Cond, c)
			w.stmts(src, ic.Then, c)
		}
	case *syntax.WhileClause:
		w.stmts(src, x.Cond, c)
		w.stmts(src, x.Do, c)
	case *syntax.ForClause:
		w.node(src, x.Loop, c)
		w.stmts(src, x.Do, c)
	case *syntax.CaseClause:
		w.words(src, c, x.Word)
		for _, it := range x.Items {
			w.words(src, c, it.Patterns...)
			w.stmts(src, it.Stmts, c)
		}
	case *syntax.FuncDecl:
		if x.Name != nil {
			w.line.Functions = append(w.line.Functions, x.Name.Value)
		}
		c.fn = true
		w.stmt(src, x.Body, c)
	case *syntax.TimeClause:
		w.stmt(src, x.Stmt, c)
	case *syntax.CoprocClause:
		w.line.Background = true
		c.child = true
		w.words(src, c, x.Name)
		w.stmt(src, x.Stmt, c)
	case *syntax.DeclClause:
		w.decl(src, x, c)
	case *syntax.TestDecl:
		w.words(src, c, x.Description)
		w.stmt(src, x.Body, c)
	default: // (( )), [[ ]], let: no program runs, but their words may hold substitutions
		w.node(src, x, c)
	}
}

// call adds a simple command, after the commands its words substitute.
func (w *walker) call(src string, x *syntax.CallExpr, c ctx) {
	for _, a := range x.Assigns {
		w.node(src, a, c)
	}
	if len(x.Args) == 0 {
		return // assignments only
	}
	w.words(src, c, x.Args...)
	cmd := Command{Args: make([]string, len(x.Args)), Piped: c.piped, Child: c.child, Substituted: c.subst, InFunction: c.fn}
	for i, word := range x.Args {
		s, ok := literal(word)
		if !ok {
			s = text(src, word)
			if cmd.dynamic == nil {
				cmd.dynamic = make([]bool, len(x.Args))
			}
			cmd.dynamic[i] = true
		}
		cmd.Args[i] = s
	}
	w.add(src, cmd, c)
}

// add appends cmd and, for an eval, the commands of the text it reads.
func (w *walker) add(src string, cmd Command, c ctx) {
	p := cmd.Program()
	run := cmd.Args[p:]
	if len(run) == 0 || run[0] != "eval" || !cmd.Literal(p) {
		w.line.Commands = append(w.line.Commands, cmd)
		return
	}
	start := p + 1
	if start < len(cmd.Args) && cmd.Args[start] == "--" && cmd.Literal(start) {
		start++
	}
	for i := start; i < len(cmd.Args); i++ {
		if !cmd.Literal(i) {
			cmd.Opaque = true
		}
	}
	text := strings.Join(cmd.Args[start:], " ")
	var f *syntax.File
	if !cmd.Opaque {
		var err error
		if f, err = parse(text); err != nil || c.evals >= maxEval {
			cmd.Opaque = true
		}
	}
	w.line.Commands = append(w.line.Commands, cmd)
	if !cmd.Opaque {
		c.evals++
		w.file(text, f, c)
	}
}

// decl adds export, declare, local, readonly, typeset as commands: their
// words are the assignments as written.
func (w *walker) decl(src string, x *syntax.DeclClause, c ctx) {
	cmd := Command{Args: []string{x.Variant.Value}, Piped: c.piped, Child: c.child, Substituted: c.subst, InFunction: c.fn}
	for _, a := range x.Args {
		w.node(src, a, c)
		cmd.Args = append(cmd.Args, text(src, a))
	}
	w.line.Commands = append(w.line.Commands, cmd)
}

func (w *walker) words(src string, c ctx, words ...*syntax.Word) {
	for _, word := range words {
		if word != nil {
			w.node(src, word, c)
		}
	}
}

// node walks a word, an assignment or an arithmetic or test expression
// for the command and process substitutions in it.
func (w *walker) node(src string, n syntax.Node, c ctx) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		var stmts []*syntax.Stmt
		switch x := n.(type) {
		case *syntax.CmdSubst:
			stmts = x.Stmts
		case *syntax.ProcSubst:
			stmts = x.Stmts
		default:
			return true
		}
		sub := ctx{child: true, subst: true, fn: c.fn, evals: c.evals}
		w.stmts(src, stmts, sub)
		return false
	})
}

// text is a node as written.
func text(src string, n syntax.Node) string {
	from, to := int(n.Pos().Offset()), int(n.End().Offset())
	if from < 0 || to > len(src) || from > to {
		return ""
	}
	return src[from:to]
}

// literal returns what a word is once its quotes and escapes are removed,
// or false when it has an expansion.
func literal(word *syntax.Word) (string, bool) {
	if len(word.Parts) == 1 {
		if l, ok := word.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
			return l.Value, true // the usual word: no copy
		}
	}
	var b strings.Builder
	for _, part := range word.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			unescape(&b, x.Value, false)
		case *syntax.SglQuoted:
			if x.Dollar && strings.IndexByte(x.Value, '\\') >= 0 {
				return "", false // $'\t': an escape to decode
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, p := range x.Parts {
				l, ok := p.(*syntax.Lit)
				if !ok {
					return "", false
				}
				unescape(&b, l.Value, true)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape writes s without its escaping backslashes: all of them outside
// double quotes, those before $ ` " \ and a newline inside; an escaped
// newline goes with its backslash.
func unescape(b *strings.Builder, s string, quoted bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte('\\')
		}
	}
}
