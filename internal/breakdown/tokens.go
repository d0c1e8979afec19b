package breakdown

import (
	"math"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Counter counts the tokens of a text.
type Counter interface {
	Count(text string) int
}

// ImageTokens is what the client counts for an image in its own estimate
// (seeds/004: TOKENS_PER_IMAGE).
const ImageTokens = 2000

// SafetyMargin is the factor the client applies to its own tokenizer
// estimate before any usage is known (seeds/004: 1.3333333333333333):
// Claude's tokenizer makes more tokens of the same text than the offline
// one, and overestimating is the safe side.
const SafetyMargin = 4.0 / 3.0

// WithMargin applies SafetyMargin to a raw count, rounding up as the
// client does.
func WithMargin(raw int64) int64 { return int64(math.Ceil(float64(raw) * SafetyMargin)) }

// Tokenizer counts with cl100k_base, offline (the vocabulary is compiled
// in). Claude's own tokenizer is not public; cl100k is the closest one that
// runs offline, and its counts are always presented as estimates. Building
// it costs 8–14 ms, so it is built on first use, never on the hook path.
func Tokenizer() Counter { return tokenizer{} }

type tokenizer struct{}

var cl100k = sync.OnceValue(codec.NewCl100kBase)

func (tokenizer) Count(text string) int {
	if text == "" {
		return 0
	}
	n, err := cl100k().Count(text)
	if err != nil { // invalid UTF-8: fall back to four bytes a token
		return (len(text) + 3) / 4
	}
	return n
}

// Runes counts characters, as every character figure here is counted.
func Runes(s string) int64 { return int64(utf8.RuneCountInString(s)) }
