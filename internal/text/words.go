package text

import (
	"strings"
	"sync"
	"unicode"
)

// Stopword reports whether w (lowercase) is a word too common to search
// for: it matches nearly everything.
func Stopword(w string) bool { return stopwords()[w] }

// stopwords is built on first use, so that hook processes that never
// search do not pay for it.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by can could did do does for from had has have how i if in
		into is it its me my of on or our so than that the their them then there these they this to was we were what when
		where which who why will with would you your he she his her him been being also just about after before any all
		some more most other such only own same too very s t don should now did does yes no not`) {
		m[w] = true
	}
	return m
})

// Tokens are the words of s as the full-text index's tokenizer cuts them:
// lowercase runs of letters and digits ("refund_test.go:42" is refund,
// test, go, 42).
func Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}
