package ctxkeep

import "strings"

// A Lookup finds an item by the id a user typed: the whole id, or a start
// of it that only one id has (as git takes a commit's hash). An index
// cleans what was typed (Clean), reads the first two ids starting with it
// in order (LIKE prefix% ORDER BY id LIMIT 2), and Pick decides. Its
// messages name the kind of item, with %q for what was typed.
type Lookup struct {
	NotFound  string // wraps ErrNotFound
	Ambiguous string // wraps ErrAmbiguous
}

// The lookups of the store's items.
var (
	EntryLookup = Lookup{NotFound: "no such entry: %q", Ambiguous: "no such entry: %q matches more than one entry; give more of the id"}
	ChunkLookup = Lookup{NotFound: "nothing archived has the key %q", Ambiguous: "%q starts more than one archived key; give more of it"}
)

// Clean is typed as ids are written (lower case, no spaces around), or an
// error wrapping ErrNotFound when it cannot start one: empty, or holding a
// LIKE wildcard or escape, which would match what was not typed.
func (l Lookup) Clean(typed string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(typed))
	if p == "" || strings.ContainsAny(p, `%_\`) {
		return p, Errorf(ErrNotFound, l.NotFound, p)
	}
	return p, nil
}

// Pick returns, of found (the first two items whose id starts with
// prefix, in id order), the one prefix names: the item with that id, or
// the only one.
func Pick[T any](l Lookup, prefix string, found []T, id func(T) string) (T, error) {
	var zero T
	switch {
	case len(found) == 0:
		return zero, Errorf(ErrNotFound, l.NotFound, prefix)
	case len(found) > 1 && id(found[0]) != prefix:
		return zero, Errorf(ErrAmbiguous, l.Ambiguous, prefix)
	}
	return found[0], nil
}
