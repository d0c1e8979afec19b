package rawjson

import (
	"encoding/json"
	"testing"
)

// An edited object keeps every other member exactly as written: order,
// key escapes, spacing inside values, numbers, duplicates.
func TestEditKeepsTheRest(t *testing.T) {
	in := `{"b": 1.50, "\u0061": {"x" : [1, 2]}, "b": 2, "n": 12345678901234567890}`
	o, err := ParseObject([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Get("b")) != "2" || o.Count("b") != 2 || o.Find("a") != 1 || o.Get("missing") != nil {
		t.Fatalf("lookups: b=%s count=%d find(a)=%d", o.Get("b"), o.Count("b"), o.Find("a"))
	}
	o = o.Set("b", json.RawMessage(`"two"`)).Set("c", Encode("<&>"))
	want := `{"b":1.50,"\u0061":{"x" : [1, 2]},"b":"two","n":12345678901234567890,"c":"<&>"}`
	if got := string(o.Marshal()); got != want {
		t.Errorf("Marshal = %s\nwant      %s", got, want)
	}
}

func TestKindsAreNamed(t *testing.T) {
	for in, want := range map[string]string{
		`[]`: "an array, not an object", ` null`: "null, not an object", `"s"`: "a string, not an object", ``: "empty, not an object",
	} {
		if _, err := ParseObject([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("ParseObject(%q) = %v, want %q", in, err, want)
		}
	}
	if _, err := ParseArray([]byte(`{}`)); err == nil || err.Error() != "an object, not an array" {
		t.Errorf("ParseArray({}) = %v", err)
	}
	elems, err := ParseArray([]byte(`[1, {"a": 2} ,"x"]`))
	if err != nil || string(MarshalArray(elems)) != `[1,{"a": 2},"x"]` {
		t.Errorf("array round trip: %s, %v", MarshalArray(elems), err)
	}
}
