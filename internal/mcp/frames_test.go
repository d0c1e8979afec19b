package mcp

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Whatever a line holds, check either passes on a message the SDK
// encodes again, or refuses it with a JSON-RPC error reply; never panics.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`, `{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"method":`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `null`, `"x"`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"JSONRPC":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":3}`, "\xff\xfe{\x00", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, refusal := check(frame{line: line})
		switch {
		case refusal != nil:
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct{ Code int }
			}
			if err := json.Unmarshal(refusal, &r); err != nil || r.JSONRPC != "2.0" || r.ID == nil ||
				r.Error.Code != jsonrpc.CodeParseError && r.Error.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("%q: refusal %s (%v)", line, refusal, err)
			}
		case msg != nil:
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("%q: message %#v does not encode: %v", line, msg, err)
			}
		case strings.TrimSpace(string(line)) != "":
			t.Fatalf("%q: neither a message nor a refusal", line)
		}
	})
}

// A line over MaxFrame is not kept, and the line after it is read whole.
func TestReadLineCap(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", MaxFrame+10)+"\nnext\r\nlast"), 64<<10)
	if f := readLine(r); !f.tooLong || f.line != nil || f.err != nil {
		t.Errorf("long line: tooLong=%v kept %d bytes, %v", f.tooLong, len(f.line), f.err)
	}
	if f := readLine(r); string(f.line) != "next" || f.tooLong || f.err != nil {
		t.Errorf("next line: %q %v %v", f.line, f.tooLong, f.err)
	}
	if f := readLine(r); string(f.line) != "last" || f.err != nil {
		t.Errorf("last line, without its end: %q %v", f.line, f.err)
	}
	if f := readLine(r); f.err == nil {
		t.Errorf("after the end: %q", f.line)
	}
	exact := strings.Repeat("y", MaxFrame)
	if f := readLine(bufio.NewReader(strings.NewReader(exact + "\r\n"))); f.tooLong || len(f.line) != MaxFrame {
		t.Errorf("a line of MaxFrame bytes: tooLong=%v, %d bytes", f.tooLong, len(f.line))
	}
}
