package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// The object's end is found wherever the reads cut it: one byte at a
// time, escapes and brackets inside strings included, and what follows
// the object is left unread.
func TestReadObjectStopsAtTheEndOfTheObject(t *testing.T) {
	for _, obj := range []string{
		`{}`,
		`{"a":"}"}`,
		`{"a":"\"}"}`,
		`{"a":"\\"}`,
		`{"a":"\\\"}\\"}`,
		`{"a":["]",{"b":"{"}],"c":{}}`,
		` {"a":1}`,
	} {
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(obj + "\n{\"more\":1}"),
			"one byte": iotest.OneByteReader(strings.NewReader(obj + "\n{\"more\":1}")),
		} {
			got, err := readObject(r, 1<<20)
			if err != nil || string(got) != obj {
				t.Errorf("%s %s: %q, %v", name, obj, got, err)
			}
		}
	}
}

// Bad input is read to the end of the stream, or up to the first byte
// that cannot begin an object: the decoder then says what is wrong.
func TestReadObjectOnBadInput(t *testing.T) {
	for in, want := range map[string]string{
		"":               "",
		`{"a":"unclosed`: `{"a":"unclosed`,
		`{"a":{"b":1}`:   `{"a":{"b":1}`,
		"not json {{{":   "n",
		`"a string" {}`:  `"`,
		`}`:              `}`,
	} {
		got, err := readObject(iotest.OneByteReader(strings.NewReader(in)), 1<<20)
		if err != nil || string(got) != want {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
}

func TestReadPayloadGivesUpAfterTheWait(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(`{"session_id":"s","hook_event_name":"St`))
	if _, err := readPayload(r, 1<<20, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "limits.hook_input_wait") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzReadObject: the JSON encoding of any string, inside an object and
// followed by more, comes back exactly, read one byte at a time.
func FuzzReadObject(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, `\"`, `}`, "{[\"]}", strings.Repeat(`\`, 7) + `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		obj, _ := json.Marshal(map[string]any{"stdout": s, "n": []any{s, map[string]string{s: s}}})
		got, err := readObject(iotest.OneByteReader(bytes.NewReader(append(obj, `{"next":1}`...))), 1<<30)
		if err != nil || !bytes.Equal(got, obj) {
			t.Fatalf("%s: got %q, %v", obj, got, err)
		}
	})
}

// BenchmarkReadObject1MB reads a 1 MB PostToolUse payload from a pipe-like
// reader (64 KiB per read), the scan for the object's end included.
func BenchmarkReadObject1MB(b *testing.B) {
	var out strings.Builder
	for n := 0; out.Len() < 1<<20; n++ {
		fmt.Fprintf(&out, "=== RUN   TestCase%d\n--- PASS: \"TestCase%d\" (0.00s)\n", n, n)
	}
	payload, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "tool_response": map[string]any{"stdout": out.String()}})
	b.SetBytes(int64(len(payload)))
	for range b.N {
		if _, err := readObject(&chunked{r: bytes.NewReader(payload), n: 64 << 10}, 16<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// chunked returns at most n bytes per Read, as a pipe does.
type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }
