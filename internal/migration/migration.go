// Package migration lists a store's embedded schema migrations, files
// named NNNN_what.sql, in the order they apply: the one way the SQLite
// index and the PostgreSQL team archive number theirs.
package migration

import (
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// File is one migration: its version (the number its name starts with)
// and its file name.
type File struct {
	Version int
	Name    string
}

// List returns the migrations in dir of fsys, by version. A file whose
// name does not start with a number is a build mistake: List panics.
func List(fsys fs.FS, dir string) []File {
	entries, _ := fs.ReadDir(fsys, dir)
	var files []File
	for _, e := range entries {
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			panic("migration: bad file name " + e.Name())
		}
		files = append(files, File{Version: v, Name: e.Name()})
	}
	slices.SortFunc(files, func(a, b File) int { return a.Version - b.Version })
	return files
}

// Latest is the version of the last of files: the schema a binary built
// with them expects.
func Latest(files []File) int { return files[len(files)-1].Version }
