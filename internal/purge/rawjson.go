package purge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object as written: members in their order, values as
// raw bytes. Changing one member re-encodes nothing else, so an edited
// transcript line keeps every field the client wrote, known to ctxkeep or
// not, exactly.
type object []member

type member struct {
	key   string          // decoded
	raw   []byte          // the key as written, quotes included
	value json.RawMessage // as written
}

var errNotObject = errors.New("not a JSON object")

func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var o object
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := bytes.TrimLeft(data[start:dec.InputOffset()], ", \t\r\n")
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key: tok.(string), raw: key, value: v})
	}
	return o, nil
}

// get returns the value of key (the last one, as JSON.parse does), or nil.
func (o object) get(key string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].value
		}
	}
	return nil
}

// set replaces the value of key, or adds the member at the end.
func (o object) set(key string, v json.RawMessage) object {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			o[i].value = v
			return o
		}
	}
	return append(o, member{key: key, raw: encode(key), value: v})
}

func (o object) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.raw)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// edit applies fn to the object in data and returns it re-encoded.
func edit(data []byte, fn func(object) (object, error)) ([]byte, error) {
	o, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	if o, err = fn(o); err != nil {
		return nil, err
	}
	return o.marshal(), nil
}

func parseArray(data []byte) ([]json.RawMessage, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		return nil, fmt.Errorf("not a JSON array: %w", err)
	}
	return elems, nil
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

// encode marshals v as the client would write it: no HTML escaping.
// ctxkeep only encodes strings and its own types, which always marshal.
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("purge: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
