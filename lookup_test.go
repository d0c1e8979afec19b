package ctxkeep_test

import (
	"errors"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// An id is found whole or by a start only one id has; what cannot start
// an id (empty, a LIKE wildcard) finds nothing.
func TestLookup(t *testing.T) {
	id := func(s string) string { return s }
	l := ctxkeep.EntryLookup
	for _, tc := range []struct {
		typed string
		found []string
		want  string
		err   error
	}{
		{" AB12 ", []string{"ab1234"}, "ab1234", nil},
		{"ab12", []string{"ab12", "ab1234"}, "ab12", nil},
		{"ab", []string{"ab12", "ab34"}, "", ctxkeep.ErrAmbiguous},
		{"zz", nil, "", ctxkeep.ErrNotFound},
		{"a%", []string{"ab12"}, "", ctxkeep.ErrNotFound},
		{"  ", []string{"ab12"}, "", ctxkeep.ErrNotFound},
	} {
		got, err := l.Clean(tc.typed)
		if err == nil {
			got, err = ctxkeep.Pick(l, got, tc.found, id)
		}
		if tc.err != nil && !errors.Is(err, tc.err) || tc.err == nil && (err != nil || got != tc.want) {
			t.Errorf("%q among %v = %q, %v; want %q, %v", tc.typed, tc.found, got, err, tc.want, tc.err)
		}
	}
}
