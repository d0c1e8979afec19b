package outline

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// render writes symbols as "line kind name", the form the tests compare.
func render(syms []Symbol) []string {
	out := make([]string, len(syms))
	for i, s := range syms {
		out[i] = fmt.Sprintf("%d %s %s", s.Line, s.Kind, s.Name)
	}
	return out
}

// diff shows got and want side by side, marking the lines that differ.
func diff(got, want []string) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		g, w := "", ""
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "≠ "
		}
		fmt.Fprintf(&b, "%s%-50s %s\n", mark, g, w)
	}
	return "got (left), want (right):\n" + b.String()
}

// langTest is one table entry of a language's tests: a file name, its
// content, and the symbols as "line kind name".
type langTest struct {
	name string
	path string
	src  string
	want []string
}

func runLangTests(t *testing.T, tests []langTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			syms := Outline(tt.path, src, 0)
			if got := render(syms); !slices.Equal(got, tt.want) {
				t.Errorf("%s\n%s", tt.path, diff(got, tt.want))
			}
			checkSymbols(t, tt.path, src, syms)
			// The same file with CRLF line breaks has the same outline.
			crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
			if got := render(Outline(tt.path, crlf, 0)); !slices.Equal(got, tt.want) {
				t.Errorf("%s with CRLF\n%s", tt.path, diff(got, tt.want))
			}
		})
	}
}

// checkSymbols checks what must hold of any outline of any input.
func checkSymbols(t testing.TB, path string, src []byte, syms []Symbol) {
	t.Helper()
	lines := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		lines++
	}
	for i, s := range syms {
		switch {
		case s.Line < 1 || s.Line > lines:
			t.Fatalf("%s: symbol %d at line %d of %d: %+v", path, i, s.Line, lines, s)
		case i > 0 && s.Line < syms[i-1].Line:
			t.Fatalf("%s: symbol %d at line %d after line %d", path, i, s.Line, syms[i-1].Line)
		case s.Depth < 0:
			t.Fatalf("%s: depth %d: %+v", path, s.Depth, s)
		case s.Kind == "":
			t.Fatalf("%s: no kind: %+v", path, s)
		case !utf8.ValidString(s.Text) || !utf8.ValidString(s.Name):
			t.Fatalf("%s: invalid UTF-8: %+v", path, s)
		case utf8.RuneCountInString(s.Text) > MaxText:
			t.Fatalf("%s: Text of %d runes: %+v", path, utf8.RuneCountInString(s.Text), s)
		case len(s.Name) > 4*maxHead:
			t.Fatalf("%s: Name of %d bytes", path, len(s.Name))
		}
	}
}

func TestKeep(t *testing.T) {
	syms := []Symbol{
		{Line: 1, Depth: 0}, {Line: 2, Depth: 1}, {Line: 3, Depth: 2}, {Line: 4, Depth: 1},
		{Line: 5, Depth: 0}, {Line: 6, Depth: 1}, {Line: 7, Depth: 2}, {Line: 8, Depth: 0},
	}
	lines := func(syms []Symbol) (out []int) {
		for _, s := range syms {
			out = append(out, s.Line)
		}
		return out
	}
	for _, tt := range []struct {
		limit int
		want  []int
	}{
		{0, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{-1, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{8, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{7, []int{1, 2, 3, 4, 5, 6, 8}}, // the depth-2 ones go first, the last one first
		{6, []int{1, 2, 4, 5, 6, 8}},    // all of depth 0 and 1
		{5, []int{1, 2, 4, 5, 8}},       // depth 1 cut in file order
		{3, []int{1, 5, 8}},             // depth 0 only
		{2, []int{1, 5}},                // depth 0 cut
	} {
		if got := lines(keep(slices.Clone(syms), tt.limit)); !slices.Equal(got, tt.want) {
			t.Errorf("keep(%d) = %v, want %v", tt.limit, got, tt.want)
		}
	}
}

func TestOutlineLimit(t *testing.T) {
	src := []byte("package p\n\ntype T struct{}\n\nfunc (T) A() {}\nfunc (T) B() {}\n\ntype I interface {\n\tM()\n\tN()\n}\n")
	if got, want := render(Outline("x.go", src, 3)), []string{"3 struct T", "5 method A", "6 method B"}; !slices.Equal(got, want) {
		t.Errorf("limit 3:\n%s", diff(got, want))
	}
	if got, want := render(Outline("x.go", src, 4)), []string{"3 struct T", "5 method A", "6 method B", "8 interface I"}; !slices.Equal(got, want) {
		t.Errorf("limit 4:\n%s", diff(got, want))
	}
}

func TestCleanText(t *testing.T) {
	long := strings.Repeat("é", MaxText+10)
	for _, tt := range []struct {
		in, want string
		brace    bool
	}{
		{"func f() {", "func f()", true},
		{"func f() {", "func f() {", false},
		{"  a \t  b\r\n c  ", "a b c", false},
		{"bad \xff byte\x00", "bad \uFFFD byte\uFFFD", false},
		{long, strings.Repeat("é", MaxText-1) + "…", false},
		{strings.Repeat("é", MaxText), strings.Repeat("é", MaxText), false},
		{strings.Repeat("é", MaxText) + "   ", strings.Repeat("é", MaxText), false},
		{"", "", true},
		{"{", "", true},
	} {
		got := cleanText([]byte(tt.in), tt.brace)
		if got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if utf8.RuneCountInString(got) > MaxText {
			t.Errorf("cleanText(%q) has %d runes", tt.in, utf8.RuneCountInString(got))
		}
	}
}

func TestLanguage(t *testing.T) {
	for _, tt := range []struct {
		path, content, want string
	}{
		{"main.go", "", "go"},
		{"/a/b/App.TSX", "", "typescript"},
		{"x.jsx", "", "javascript"},
		{"lib/spotter_web/live/session_live.ex", "", "elixir"},
		{"test/test_helper.exs", "", "elixir"},
		{"src/lib.rs", "", "rust"},
		{"Foo.java", "", "java"},
		{"Program.cs", "", "csharp"},
		{"x.c", "", "c"},
		{"x.h", "int f(void);\n", "c"},
		{"x.h", "namespace a {\n}\n", "cpp"},
		{"x.hpp", "", "cpp"},
		{"app.rb", "", "ruby"},
		{"index.php", "", "php"},
		{"Main.kt", "", "kotlin"},
		{"View.swift", "", "swift"},
		{"Main.scala", "", "scala"},
		{"run.sh", "", "shell"},
		{"init.lua", "", "lua"},
		{"schema.sql", "", "sql"},
		{"README.md", "", "markdown"},
		{"Makefile", "", "makefile"},
		{"build/Dockerfile", "", "dockerfile"},
		{"Dockerfile.dev", "", "dockerfile"},
		{"Gemfile", "", "ruby"},
		{`C:\src\main.py`, "", "python"},
		{"pyproject.toml", "", "toml"},
		{"data.json", "", "json"},
		{"notes.txt", "", "text"},
		{"bin/tool", "#!/usr/bin/env python3\nprint(1)\n", "python"},
		{"bin/tool", "#!/bin/bash\n", "shell"},
		{"bin/tool", "#!/usr/bin/env -S deno run --allow-net\n", "typescript"},
		{"bin/tool", "#!/usr/bin/env node\n", "javascript"},
		{"bin/tool", "#! /usr/bin/ruby2.7 -w\n", "ruby"},
		{"bin/tool", "#!/usr/bin/env elixir\n", "elixir"},
		{"bin/tool", "no shebang\n", ""},
		{"bin/tool", "", ""},
		{"", "", ""},
		{"x.unknownext", "", ""},
		{".bashrc", "", "shell"},
	} {
		if got := Language(tt.path, []byte(tt.content)); got != tt.want {
			t.Errorf("Language(%q, %q) = %q, want %q", tt.path, tt.content, got, tt.want)
		}
	}
}

func TestNoOutline(t *testing.T) {
	for path, content := range map[string]string{
		"data.json":   `{"def": "function f() {}"}`,
		"notes.txt":   "class Foo:\n  def bar(self): pass\n",
		"x.go":        "package p\x00\nfunc F() {}\n", // binary
		"empty.go":    "",
		"blank.py":    "\n\n\n",
		"config.yaml": "def: 1\nclass: 2\n",
	} {
		if syms := Outline(path, []byte(content), 0); len(syms) != 0 {
			t.Errorf("Outline(%q) = %v, want none", path, render(syms))
		}
	}
}

// TestHostileInput feeds what a tool result can hold: huge lines,
// unbalanced brackets, unterminated strings and comments, invalid UTF-8,
// deep nesting, lone CRs. Nothing may panic, and the symbols must stay
// sane; the outlines of the lines after the damage are what can be found.
func TestHostileInput(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	inputs := map[string]string{
		"min.js":      "function a(){" + strings.Repeat("var b=function(){return'}'};", 100000) + "}",
		"long.go":     "package p\nvar x = `" + huge + "`\nfunc After() {}\n",
		"open.go":     "package p\n/* never closed\nfunc F() {}\n",
		"braces.go":   "package p\n" + strings.Repeat("{", 100000) + "\nfunc F() {}\n" + strings.Repeat("}", 200000) + "\nfunc G() {}\n",
		"parens.py":   strings.Repeat("(", 100000) + "\ndef f(): pass\n",
		"utf8.rs":     "fn \xff\xfe() {}\nfn ok() {}\nstruct \xc3(\n",
		"cr.c":        "int main(void)\r{\rreturn 0;\r}\r",
		"quotes.ex":   "defmodule A do\n  def f, do: \"\n" + strings.Repeat("\"\"\"\n", 1001) + "  def g, do: 1\nend\n",
		"heredoc.sh":  "cat <<EOF\nf() {\n",
		"lua.lua":     "--[==[ never closed\nfunction f() end\n",
		"pp.c":        strings.Repeat("#if A\n", 200) + "int f(void) {\n}\n" + strings.Repeat("#endif\n", 300),
		"tabs.py":     "\t\tdef f():\n\t\t\tpass\n \tdef g(): pass\n",
		"deep.py":     strings.Repeat(" ", 1<<16) + "def f(): pass\n",
		"nul.md":      "# Title\n\x00",
		"headings.md": strings.Repeat("#", 100000) + "\n" + strings.Repeat("=", 100) + "\n",
		"tpl.cpp":     "template <" + strings.Repeat("<", 5000) + "\nint f() {}\n",
		"x.sql":       "CREATE TABLE $$ " + huge[:1000] + "\nCREATE TABLE t (x int);\n",
		"slashes.js":  strings.Repeat("(/[", 5000) + "\n" + strings.Repeat(strings.Repeat("(/[", 5000)+"\n", 300),
		"hashes.rs":   strings.Repeat(strings.Repeat("#", 5000)+`"`, 3) + "\n",
		"ifs.c":       strings.Repeat("{", 300) + "\n" + strings.Repeat("#if A\n#else\n#endif\n", 20000),
	}
	for path, content := range inputs {
		syms := Outline(path, []byte(content), 0)
		checkSymbols(t, path, []byte(content), syms)
	}
	// A huge minified line is read at its start only.
	syms := Outline("min.js", []byte(inputs["min.js"]), 0)
	if got, want := render(syms), []string{"1 func a"}; !slices.Equal(got, want) {
		t.Errorf("min.js:\n%s", diff(got, want))
	}
	if got, want := render(Outline("long.go", []byte(inputs["long.go"]), 0)), []string{"3 func After"}; !slices.Equal(got, want) {
		t.Errorf("long.go:\n%s", diff(got, want))
	}
}
