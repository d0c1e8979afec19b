package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// checkSyntax reports where data stops being valid JSON, as line and column
// (both from 1, the column in characters) so that the user can find it.
func checkSyntax(data []byte) error {
	err := json.Unmarshal(data, new(json.RawMessage))
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return err
	}
	before := data[:min(int(syn.Offset), len(data))]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, max(col, 1), syn)
}

// sameJSON reports whether a and b hold the same value, whatever their
// spacing, key order or string escapes.
func sameJSON(a, b json.RawMessage) bool {
	x, errX := decodeAny(a)
	y, errY := decodeAny(b)
	return errX == nil && errY == nil && reflect.DeepEqual(x, y)
}

func decodeAny(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
