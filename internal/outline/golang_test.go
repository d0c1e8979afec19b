package outline

import (
	"slices"
	"testing"
)

func TestGo(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "generics and methods",
		path: "store.go",
		src: `// Package store keeps blobs.
package store

import "fmt"

// Store is a content-addressed store.
type Store[K comparable, V any] struct {
	items map[K]V
}

func New[K comparable, V any]() *Store[K, V] { return &Store[K, V]{} }

func (s *Store[K, V]) Put(key K, v V) (bool, error) {
	f := func() {} // a closure is not a declaration
	_ = f
	return true, nil
}

func (Store[K, V]) String() string { return fmt.Sprint("store") }

type (
	Info struct {
		Size int64
	}
	ID     string
	Getter interface {
		Get(id ID) (Info, error)
		fmt.Stringer
	}
	Alias = map[string]int
	Pair[T any] struct{ A, B T }
)

type Array [4]int

type Number interface {
	~int | ~float64
}

func Map[T, U any](s []T, f func(T) U) []U {
	var out []U
	return out
}
`,
		want: []string{
			"7 struct Store", "11 func New", "13 method Put", "19 method String",
			"22 struct Info", "25 type ID", "26 interface Getter", "27 method Get",
			"30 type Alias", "31 struct Pair", "34 type Array", "36 interface Number", "40 func Map",
		},
	}, {
		name: "comments and strings",
		path: "x.go",
		src:  "package x\n\n/*\nfunc InComment() {}\n*/\n\nvar s = `\nfunc InRawString() {}\n`\n\nvar t = \"func {\" // }\n\nfunc Real() {\n\tr := '{'\n\t_ = r\n}\n\nfunc multiline(\n\ta int, // the a\n\tb string,\n) (int, error) {\n\treturn 0, nil\n}\n",
		want: []string{"13 func Real", "18 func multiline"},
	}})
}

func TestGoText(t *testing.T) {
	src := []byte("package x\n\nfunc (s *Store) Put(data []byte) (Info, bool, error) {\n}\n\nfunc multiline(\n\ta int, // the a\n\tb string,\n) (int, error) {\n\treturn 0, nil\n}\n\nfunc short() int { return 1 }\n")
	var got []string
	for _, s := range Outline("x.go", src, 0) {
		got = append(got, s.Text)
	}
	want := []string{
		"func (s *Store) Put(data []byte) (Info, bool, error)",
		"func multiline(a int, b string,) (int, error)",
		"func short() int",
	}
	if !slices.Equal(got, want) {
		t.Errorf("\n%s", diff(got, want))
	}
}

// TestGoResync: a brace misread in a way the lexer cannot know about
// does not lose the rest of the file; the next func at the left margin
// is at top level again.
func TestGoResync(t *testing.T) {
	src := []byte("package p\n\nfunc A() {\n\tif x {\n}\n\nfunc B() {}\n\ntype T struct{}\n\nfunc (T) M() {}\n")
	want := []string{"3 func A", "7 func B", "9 struct T", "11 method M"}
	if got := render(Outline("p.go", src, 0)); !slices.Equal(got, want) {
		t.Errorf("\n%s", diff(got, want))
	}
}
