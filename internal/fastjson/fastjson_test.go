package fastjson

import (
	stdjson "encoding/json"
	"testing"
	"unsafe"

	"github.com/go-json-experiment/json"
)

// The raw values UnmarshalAliased fills lie inside its input, and equal
// what Unmarshal copies.
func TestUnmarshalAliased(t *testing.T) {
	data := []byte(`{"a":"x","raw":{"stdout":"big\n","n":[1,2]},"b":1}`)
	var aliased, copied struct {
		A   string             `json:"a"`
		Raw stdjson.RawMessage `json:"raw"`
	}
	if err := UnmarshalAliased(data, &aliased); err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal(data, &copied); err != nil {
		t.Fatal(err)
	}
	if string(aliased.Raw) != string(copied.Raw) || aliased.A != "x" {
		t.Fatalf("aliased %q, copied %q", aliased.Raw, copied.Raw)
	}
	start, end := uintptr(unsafe.Pointer(unsafe.SliceData(data))), uintptr(unsafe.Pointer(unsafe.SliceData(data)))+uintptr(len(data))
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(aliased.Raw))); p < start || p >= end {
		t.Errorf("the raw value was copied")
	}
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(copied.Raw))); p >= start && p < end {
		t.Errorf("Unmarshal aliases its input")
	}
}

// Strings in a large input decode as the library's own decoder decodes them: escapes,
// surrogate pairs, invalid UTF-8 (U+FFFD), null (unchanged), and the same
// error for a value of another kind.
func TestStringsDecodeAsTheDefault(t *testing.T) {
	for _, in := range []string{
		`{"s":"plain"}`, `{"s":"a\nb\t\"c\"\\ \/ \u00e9 \ud83d\ude00 \ud800"}`, "{\"s\":\"bad \xff\xfe utf8\"}",
		`{"s":null}`, `{"s":""}`, `{"s":12}`, `{"s":["x"]}`, `{"s":"unterminated}`,
	} {
		type doc struct{ S string }
		got, want := doc{S: "kept"}, doc{S: "kept"}
		gotErr := json.Unmarshal([]byte(in), &got, lenientLarge())
		wantErr := json.Unmarshal([]byte(in), &want, lenient)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: got %q (%v), the default %q (%v)", in, got.S, gotErr, want.S, wantErr)
		}
	}
}
