package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// object is a JSON object kept as the user wrote it: members in their
// original order, keys with their original escapes, values as raw bytes.
// Decoding into map[string]any would sort the user's keys and turn numbers
// into float64; this type lets us change one member and leave the rest be.
type object []member

type member struct {
	name  string          // decoded, to look the member up
	key   []byte          // as written, so that output keeps the user's escapes
	value json.RawMessage // as written
}

// parseObject splits a JSON object into its members. data must be valid JSON
// (see checkSyntax); anything else than an object is an error.
func parseObject(data []byte) (object, error) {
	if k := kind(data); k != "an object" {
		return nil, fmt.Errorf("%s, not an object", k)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	obj := object{}
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		// Between start and here lie the separating comma, spaces and the key.
		key := bytes.TrimLeft(data[start:dec.InputOffset()], ", \t\r\n")
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		obj = append(obj, member{name: tok.(string), key: key, value: value})
	}
	return obj, nil
}

// find returns the index of the member called name, or -1. When a name is
// repeated the last one counts, as it does for JSON.parse in Claude Code.
func (o object) find(name string) int {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].name == name {
			return i
		}
	}
	return -1
}

// count returns how many members are called name.
func (o object) count(name string) int {
	n := 0
	for _, m := range o {
		if m.name == name {
			n++
		}
	}
	return n
}

// get returns the value of the member called name, or nil.
func (o object) get(name string) json.RawMessage {
	if i := o.find(name); i >= 0 {
		return o[i].value
	}
	return nil
}

// marshal writes the object back, compact apart from whatever spacing its
// untouched values carry; format re-indents the whole document anyway.
func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.key)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func newMember(name string, value json.RawMessage) member {
	return member{name: name, key: encode(name), value: value}
}

// parseArray splits a JSON array into its raw elements.
func parseArray(data []byte) ([]json.RawMessage, error) {
	if k := kind(data); k != "an array" {
		return nil, fmt.Errorf("%s, not an array", k)
	}
	var elems []json.RawMessage
	err := json.Unmarshal(data, &elems)
	return elems, err
}

func marshalArray(elems []json.RawMessage) json.RawMessage {
	b := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}

// encode marshals v without escaping <, > and &: settings are read by
// people and by Claude Code, never embedded in HTML. It only gets strings
// and ctxkeep's own types, which always marshal.
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("claudecode: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// kind names the JSON type of a valid value, for error messages.
func kind(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "empty"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

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
