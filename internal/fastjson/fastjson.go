// Package fastjson decodes the hook payloads that can be megabytes long
// (a tool's whole output inside a PostToolUse event) about three times
// faster than encoding/json on this project's machines (docs/BENCHMARKS.md),
// using github.com/go-json-experiment/json, the code that became
// encoding/json/v2 (which the standard library builds only under
// GOEXPERIMENT=jsonv2). It is set up to accept what encoding/json accepts:
// invalid UTF-8, duplicate names.
package fastjson

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

var lenient = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
	json.MatchCaseInsensitiveNames(true),
)

// Unmarshal decodes data into v like encoding/json.Unmarshal.
func Unmarshal(data []byte, v any) error {
	return json.Unmarshal(data, v, lenient)
}
