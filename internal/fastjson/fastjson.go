// Package fastjson decodes the hook payloads that can be megabytes long
// (a tool's whole output inside a PostToolUse event) about three times
// faster than encoding/json on this project's machines (docs/BENCHMARKS.md),
// using github.com/go-json-experiment/json, the code that became
// encoding/json/v2 (which the standard library builds only under
// GOEXPERIMENT=jsonv2). It is set up to accept what encoding/json accepts:
// invalid UTF-8, duplicate names.
package fastjson

import (
	stdjson "encoding/json"
	"errors"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

var lenient = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
	json.MatchCaseInsensitiveNames(true),
)

// lenientLarge is lenient for an input of `large` bytes or more, whose
// strings may be megabytes: unquoteOnce saves each a copy. Building the
// option takes 0.04 ms, so a process pays for it only when it decodes such
// an input (most hook calls never do).
var lenientLarge = sync.OnceValue(func() json.Options {
	return json.JoinOptions(lenient, json.WithUnmarshalers(json.UnmarshalFromFunc(unquoteOnce)))
})

const large = 64 << 10

// unquoteOnce decodes a JSON string into the one buffer the string then
// is: the default decoder unquotes into a buffer and copies that into the
// string, a second megabyte of fresh memory for a large tool output. Like
// the default (with AllowInvalidUTF8), invalid UTF-8 becomes U+FFFD, and
// null leaves "".
func unquoteOnce(dec *jsontext.Decoder, v *string) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported // null, or the default's error for another kind
	}
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	// val is a valid JSON string: the only error left is invalid UTF-8,
	// already replaced.
	b, _ := jsontext.AppendUnquote(make([]byte, 0, len(val)), val)
	*v = unsafe.String(unsafe.SliceData(b), len(b))
	return nil
}

// Unmarshal decodes data into v like encoding/json.Unmarshal.
func Unmarshal(data []byte, v any) error {
	if len(data) >= large {
		return json.Unmarshal(data, v, lenientLarge())
	}
	return json.Unmarshal(data, v, lenient)
}

// aliasRaw decodes an encoding/json RawMessage as the bytes of the input
// it spans, without the copy its own UnmarshalJSON makes: decoding from a
// byte slice, the decoder reads that slice in place.
var aliasRaw = json.WithUnmarshalers(json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *stdjson.RawMessage) error {
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*v = stdjson.RawMessage(val)
	return nil
}))

// UnmarshalAliased is Unmarshal, except that the json.RawMessage values it
// fills are slices of data rather than copies: a hook's payload carries a
// whole tool output (megabytes) in one of them. data must not change
// while they are in use.
func UnmarshalAliased(data []byte, v any) error {
	return json.Unmarshal(data, v, lenient, aliasRaw)
}
