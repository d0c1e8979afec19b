package outline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// goOracle lists what Outline should find in a Go file, as go/parser sees
// it: funcs, methods, types, and the methods of interfaces.
func goOracle(t testing.TB, path string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var want []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			kind := "func"
			if d.Recv != nil {
				kind = "method"
			}
			want = append(want, fmt.Sprintf("%d %s %s", line(d.Pos()), kind, d.Name.Name))
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				kind := "type"
				switch ts.Type.(type) {
				case *ast.StructType:
					kind = "struct"
				case *ast.InterfaceType:
					kind = "interface"
				}
				want = append(want, fmt.Sprintf("%d %s %s", line(ts.Pos()), kind, ts.Name.Name))
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					for _, m := range it.Methods.List {
						// One Symbol per line: interface{ Pos() syntax.Pos } shows the interface.
						if _, ok := m.Type.(*ast.FuncType); ok && len(m.Names) > 0 && line(m.Pos()) != line(ts.Pos()) {
							want = append(want, fmt.Sprintf("%d method %s", line(m.Pos()), m.Names[0].Name))
						}
					}
				}
			}
		}
	}
	slices.SortStableFunc(want, func(a, b string) int { return lineOf(a) - lineOf(b) })
	return want
}

func lineOf(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestGoRepository checks the outline of every Go file of this repository
// against go/parser's.
func TestGoRepository(t *testing.T) {
	n := 0
	for _, root := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.Contains(path, "testdata") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n++
			want := goOracle(t, path, src)
			if got := render(Outline(path, src, 0)); !slices.Equal(got, want) {
				t.Errorf("%s:\n%s", path, diff(got, want))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 50 {
		t.Fatalf("only %d Go files found: is the test running in internal/outline?", n)
	}
}

// TestKnownGoFiles spells out, for a few files, what the outline shows:
// receivers, signatures, depth.
func TestKnownGoFiles(t *testing.T) {
	tests := []struct {
		path string
		want []Symbol // must be found, among others
	}{
		{"outline.go", []Symbol{
			{Kind: "struct", Name: "Symbol", Text: "type Symbol struct"},
			{Kind: "func", Name: "Outline", Text: "func Outline(path string, content []byte, limit int) []Symbol"},
			{Kind: "func", Name: "keep", Text: "func keep(syms []Symbol, limit int) []Symbol"},
		}},
		{"scan.go", []Symbol{
			{Kind: "method", Name: "outline", Text: "func (lang *language) outline(src []byte, header bool) []Symbol"},
			{Kind: "func", Name: "lines", Text: "func lines(src []byte) iter.Seq2[int, []byte]"},
		}},
		{"../blob/blob.go", []Symbol{
			{Kind: "method", Name: "Put"},
			{Kind: "method", Name: "Get"},
		}},
	}
	for _, tt := range tests {
		src, err := os.ReadFile(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		got := Outline(tt.path, src, 0)
		lines := bytes.Split(src, []byte("\n"))
		for _, w := range tt.want {
			i := slices.IndexFunc(got, func(s Symbol) bool { return s.Kind == w.Kind && s.Name == w.Name })
			if i < 0 {
				t.Errorf("%s: no %s %s in %v", tt.path, w.Kind, w.Name, render(got))
				continue
			}
			s := got[i]
			if w.Text != "" && s.Text != w.Text {
				t.Errorf("%s: %s Text = %q, want %q", tt.path, w.Name, s.Text, w.Text)
			}
			// The line is the declaration's, wherever the file has it.
			if decl := string(lines[s.Line-1]); !strings.Contains(decl, " "+w.Name) || s.Depth != 0 {
				t.Errorf("%s: %s at line %d, depth %d: %q", tt.path, w.Name, s.Line, s.Depth, decl)
			}
		}
	}
}

// sessionFiles extracts the source files the agent read whole in the real
// sessions of shared/data (an Elixir/Phoenix project): Read results carry
// the file in toolUseResult.file.content. A file read several times (in
// several worktrees of the project) appears once per path.
func sessionFiles(t testing.TB, exts ...string) map[string]string {
	t.Helper()
	paths := realdata.SpotterAll(t)
	files := map[string]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if !bytes.Contains(sc.Bytes(), []byte(`"toolUseResult"`)) {
				continue
			}
			var rec struct {
				ToolUseResult struct {
					File struct {
						FilePath   string `json:"filePath"`
						Content    string `json:"content"`
						StartLine  int    `json:"startLine"`
						NumLines   int    `json:"numLines"`
						TotalLines int    `json:"totalLines"`
					} `json:"file"`
				} `json:"toolUseResult"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				continue // toolUseResult is not always an object
			}
			file := rec.ToolUseResult.File
			whole := file.StartLine == 1 && file.NumLines == file.TotalLines
			if whole && slices.Contains(exts, filepath.Ext(file.FilePath)) {
				files[file.FilePath] = file.Content
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestElixirSessions outlines the Elixir files read in real sessions, and
// checks that every def, defp, defmacro and defmodule at the start of a
// line of code is found (a line-by-line check that knows heredocs, which
// is enough for these files), and nothing else of those kinds.
func TestElixirSessions(t *testing.T) {
	files := sessionFiles(t, ".ex", ".exs")
	if len(files) < 20 {
		t.Fatalf("only %d Elixir files in the sessions", len(files))
	}
	defs := 0
	for path, content := range files {
		var want []string
		inDoc := false
		for i, l := range strings.Split(content, "\n") {
			trimmed := strings.TrimSpace(l)
			if strings.Count(trimmed, `"""`) == 1 { // @doc """, execute(""", """)
				inDoc = !inDoc
				continue
			}
			if inDoc {
				continue
			}
			word, rest, _ := strings.Cut(trimmed, " ")
			switch word {
			case "def", "defp", "defmacro", "defmacrop", "defmodule":
				name := strings.FieldsFunc(rest, func(r rune) bool { return strings.ContainsRune("(, ", r) })[0]
				want = append(want, fmt.Sprintf("%d %s", i+1, name))
			}
		}
		var got []string
		for _, s := range Outline(path, []byte(content), 0) {
			if s.Kind == "func" || s.Kind == "macro" || s.Kind == "module" {
				got = append(got, fmt.Sprintf("%d %s", s.Line, s.Name))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n%s", path, diff(got, want))
		}
		defs += len(want)
	}
	t.Logf("%d Elixir files, %d definitions", len(files), defs)
}

// TestSessionFiles outlines every source file read in the sessions, in
// whatever language: no panic, sane symbols, and a known outline for
// some.
func TestSessionFiles(t *testing.T) {
	files := sessionFiles(t, ".ex", ".exs", ".js", ".sh", ".md", ".json", ".css", ".heex")
	for path, content := range files {
		checkSymbols(t, path, []byte(content), Outline(path, []byte(content), 0))
	}
	// Some outlines, in at least one version of the file.
	for path, want := range map[string][]string{
		"lib/spotter_web/live/subagent_live.ex": {"1 module SpotterWeb.SubagentLive", "func mount", "func render"},
		"assets/js/app.js":                      {"object Hooks.Terminal", "method mounted"},
		"README.md":                             {"1 heading Spotter", "heading Installation"},
	} {
		var outlines []string
		for p, content := range files {
			if strings.HasSuffix(p, "/"+path) {
				outlines = append(outlines, strings.Join(render(Outline(p, []byte(content), 0)), "\n"))
			}
		}
		if !slices.ContainsFunc(outlines, func(o string) bool {
			return !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(o, w) })
		}) {
			t.Errorf("%s: no version with %q among\n%s", path, want, strings.Join(outlines, "\n---\n"))
		}
	}
}

// BenchmarkElixirSessions outlines 256 KB of the Elixir the agent read in
// the real sessions, the code ctxkeep is measured on.
func BenchmarkElixirSessions(b *testing.B) {
	files := sessionFiles(b, ".ex", ".exs")
	paths := slices.Sorted(maps.Keys(files))
	var src []byte
	for len(src) < benchSize {
		for _, p := range paths {
			src = append(src, files[p]...)
		}
	}
	benchmarkOutline(b, "all.ex", src[:benchSize])
}
