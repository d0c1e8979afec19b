// Package rawjson edits JSON that someone else wrote — Claude Code's
// settings files, its transcript lines — changing only what it must. An
// Object keeps its members in their order, their keys with the escapes
// they were written with, and every value as raw bytes: decoding into
// map[string]any would sort the keys, turn numbers into float64 and drop
// what ctxkeep does not know.
package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Object is a JSON object as written.
type Object []Member

// Member is one name and value of an Object.
type Member struct {
	Name  string          // decoded, to look the member up
	Key   []byte          // as written, quotes and escapes included
	Value json.RawMessage // as written
}

// NewMember is a member to add, its key encoded.
func NewMember(name string, value json.RawMessage) Member {
	return Member{Name: name, Key: Encode(name), Value: value}
}

// ParseObject splits a JSON object into its members. Anything else than
// an object is an error that says what it is ("an array, not an object").
func ParseObject(data []byte) (Object, error) {
	if k := Kind(data); k != "an object" {
		return nil, fmt.Errorf("%s, not an object", k)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	obj := Object{}
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
		obj = append(obj, Member{Name: tok.(string), Key: key, Value: value})
	}
	if _, err := dec.Token(); err != nil { // }
		return nil, err
	}
	return obj, nil
}

// Find returns the index of the member called name, or -1. When a name is
// repeated the last one counts, as it does for JSON.parse in Claude Code.
func (o Object) Find(name string) int {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Name == name {
			return i
		}
	}
	return -1
}

// Count returns how many members are called name.
func (o Object) Count(name string) int {
	n := 0
	for _, m := range o {
		if m.Name == name {
			n++
		}
	}
	return n
}

// Get returns the value of the member called name, or nil.
func (o Object) Get(name string) json.RawMessage {
	if i := o.Find(name); i >= 0 {
		return o[i].Value
	}
	return nil
}

// Set replaces the value of the member called name, or adds the member at
// the end.
func (o Object) Set(name string, value json.RawMessage) Object {
	if i := o.Find(name); i >= 0 {
		o[i].Value = value
		return o
	}
	return append(o, NewMember(name, value))
}

// Marshal writes the object back, compact apart from whatever spacing its
// untouched values carry.
func (o Object) Marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.Key)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// ParseArray splits a JSON array into its raw elements.
func ParseArray(data []byte) ([]json.RawMessage, error) {
	if k := Kind(data); k != "an array" {
		return nil, fmt.Errorf("%s, not an array", k)
	}
	var elems []json.RawMessage
	err := json.Unmarshal(data, &elems)
	return elems, err
}

// MarshalArray joins raw elements into an array.
func MarshalArray(elems []json.RawMessage) json.RawMessage {
	b := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}

// Encode marshals v as Claude Code writes JSON: without escaping <, > and
// &. It is for strings and ctxkeep's own types, which always marshal.
func Encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("rawjson: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// Kind names the JSON type of a value by its first byte, for messages.
func Kind(v []byte) string {
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
