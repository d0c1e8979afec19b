package outline

import (
	"fmt"
	"testing"
	"time"
)

// fuzzExtensions steer the fuzzer into every set of rules: a random path
// would almost never name a language.
var fuzzExtensions = []string{
	".go", ".py", ".ts", ".tsx", ".js", ".rs", ".java", ".cs", ".c", ".h", ".cpp", ".rb", ".php", ".kt",
	".swift", ".ex", ".exs", ".scala", ".sh", ".lua", ".sql", ".md", ".dart", ".groovy", ".toml", ".zig", "",
	"/Makefile", "/Dockerfile",
}

// FuzzOutline outlines any bytes as any language. It must not panic, and
// every Symbol must be sane: in file order, at a line of the file, with
// a kind, valid UTF-8 and a bounded Text.
func FuzzOutline(f *testing.F) {
	seeds := []string{
		"package p\n\nfunc (s *S) F[T any](x T) {}\ntype (\n\tA struct{}\n)\n",
		"class A:\n    def f(self):\n        '''doc\n        def no(): pass'''\n",
		"export const f = async <T,>(x: T) => {\n  return `${x}`;\n};\nclass C { m() {} }\n",
		"impl<T> Foo<T> where T: Clone {\n    pub fn new() -> Self { r#\"}\"# }\n}\n",
		"#if 0\nint f() {\n#else\nint g() {\n#endif\n}\n",
		"defmodule A do\n  @doc \"\"\"\n  def no\n  \"\"\"\n  def f(x) when x > 0, do: ?\"\nend\n",
		"cat <<EOF\nf() {\nEOF\ng() { :; }\n",
		"<?php\nclass A { public function f() {} }\n?>\n<p>it's</p>\n",
		"--[==[\nfunction no() end\n]==]\nfunction M:f() end\n",
		"CREATE TABLE t ($$\n$$);\n",
		"# Title\n```\n# no\n```\nSub\n---\n",
		"\xff\xfe\x00{{{{(((('\"`/*",
		"struct S<'a> { x: &'a str }\nfn f<'a>(c: char) { let q = '\\''; }\n",
		"fun 9x() {}\nfun <T> List<T>.`odd name`() {}\n",
	}
	for i, s := range seeds {
		f.Add(uint8(i), "src/file", []byte(s))
	}
	f.Fuzz(func(t *testing.T, ext uint8, path string, content []byte) {
		p := path + fuzzExtensions[int(ext)%len(fuzzExtensions)]
		// A loop that does not advance shows as a hang, which the fuzzer
		// may fail to record on a busy machine: a panic it records.
		watchdog := time.AfterFunc(5*time.Second, func() {
			panic(fmt.Sprintf("Outline(%q, %d bytes) still running after 5s", p, len(content)))
		})
		defer watchdog.Stop()
		checkSymbols(t, p, content, Outline(p, content, 0))
		if syms := Outline(p, content, 3); len(syms) > 3 {
			t.Fatalf("limit 3 gave %d symbols", len(syms))
		}
	})
}
