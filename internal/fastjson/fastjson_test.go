package fastjson

import (
	"encoding/json"
	"testing"
	"unsafe"
)

// The raw values UnmarshalAliased fills lie inside its input, and equal
// what Unmarshal copies.
func TestUnmarshalAliased(t *testing.T) {
	data := []byte(`{"a":"x","raw":{"stdout":"big\n","n":[1,2]},"b":1}`)
	var aliased, copied struct {
		A   string          `json:"a"`
		Raw json.RawMessage `json:"raw"`
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
