package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/ctxkeep/ctxkeep/internal/mcp"
	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// mcpServer is `ctxkeep mcp` as a client runs it: a process, JSON-RPC
// lines on its stdin and stdout.
type mcpServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	stderr bytes.Buffer
}

func startMCP(t *testing.T) *mcpServer {
	t.Helper()
	bin := testbin.Path(t)
	home := t.TempDir()
	env := []string{"CTXKEEP_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	migrate(t, bin, env)
	s := &mcpServer{t: t, cmd: exec.Command(bin, "mcp"), lines: make(chan []byte, 64)}
	s.cmd.Env, s.cmd.Dir, s.cmd.Stderr = env, home, &s.stderr
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			s.lines <- bytes.Clone(sc.Bytes())
		}
		close(s.lines)
	}()
	s.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`))
	s.next("the reply to initialize")
	s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return s
}

func (s *mcpServer) send(frame []byte) {
	s.t.Helper()
	if _, err := s.in.Write(append(frame, '\n')); err != nil {
		s.t.Fatalf("the server no longer reads (%v); stderr:\n%s", err, s.stderr.String())
	}
}

// next is the server's next line, as a reply.
func (s *mcpServer) next(what string) reply {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.cmd.Wait()
			s.t.Fatalf("no %s: the server ended (%v); stderr:\n%s", what, s.cmd.ProcessState, s.stderr.String())
		}
		var r reply
		if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
			s.t.Fatalf("%s is not a JSON-RPC reply (%v): %.300s", what, err, line)
		}
		return r
	case <-time.After(30 * time.Second):
		s.t.Fatalf("no %s within 30 s", what)
	}
	return reply{}
}

type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func utf16le(s string) []byte {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// The MCP server answers every malformed frame with the JSON-RPC error it
// calls for — a parse error (-32700) or an invalid request (-32600), with
// the request's id when it has a usable one, null otherwise — and goes on
// serving: after each, a ping is answered. A frame over mcp.MaxFrame is
// refused unread. Before, 7 of these made it exit 1 with no reply.
func TestMCPServerSurvivesMalformedFrames(t *testing.T) {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	s := startMCP(t) // one server for all of them, in a row
	for _, c := range []struct {
		name  string
		frame []byte
		code  int
		id    string
	}{
		{"invalid JSON", []byte(`{"jsonrpc":"2.0","id":1,"method":`), -32700, "null"},
		{"not JSON", []byte(`hello`), -32700, "null"},
		{"a batch", []byte(`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`), -32600, "null"},
		{"an empty batch", []byte(`[]`), -32600, "null"},
		{"an object id", []byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`), -32600, "null"},
		{"a fractional id", []byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`), -32600, "null"},
		{"no jsonrpc", []byte(`{"id":7,"method":"ping"}`), -32600, "7"},
		{"jsonrpc 1.0", []byte(`{"jsonrpc":"1.0","id":"v","method":"ping"}`), -32600, `"v"`},
		{"a method that is not a string", []byte(`{"jsonrpc":"2.0","id":9,"method":42}`), -32600, "9"},
		{"params that are not structured", []byte(`{"jsonrpc":"2.0","id":10,"method":"ping","params":"x"}`), -32600, "10"},
		{"neither a request nor a response", []byte(`{"jsonrpc":"2.0","id":11}`), -32600, "11"},
		{"null", []byte(`null`), -32600, "null"},
		{"NUL bytes", []byte("{\"jsonrpc\":\"2.0\",\x00\"id\":13,\"method\":\"ping\"}\x00"), -32700, "null"},
		{"UTF-16", utf16le(`{"jsonrpc":"2.0","id":14,"method":"ping"}`), -32700, "null"},
		{"invalid UTF-8", []byte("{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"ping\",\"params\":{\"s\":\"\xff\"}}"), -32700, "null"},
		{"two messages on a line", []byte(`{"jsonrpc":"2.0","id":16,"method":"ping"} {"jsonrpc":"2.0","id":17,"method":"ping"}`), -32700, "null"},
		{"100,000-deep nesting", []byte(`{"jsonrpc":"2.0","id":18,"method":"ping","params":{"a":` + deep + `}}`), -32700, "null"},
		{"an oversized line", []byte(`{"jsonrpc":"2.0","id":19,"method":"ping","params":{"a":"` + strings.Repeat("x", mcp.MaxFrame) + `"}}`), -32600, "null"},
	} {
		s.send(c.frame)
		r := s.next("reply to " + c.name)
		if r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id {
			t.Errorf("%s: reply %s %+v, want error %d with id %s", c.name, r.ID, r.Error, c.code, c.id)
		}
		s.send([]byte(`{"jsonrpc":"2.0","id":"after","method":"ping"}`))
		if r := s.next("reply to the ping after " + c.name); string(r.ID) != `"after"` || r.Error != nil {
			t.Errorf("%s: the ping after it got %s %+v", c.name, r.ID, r.Error)
		}
	}
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("the server ended with %v when the client hung up; stderr:\n%s", err, s.stderr.String())
	}
}

// Frames up to the limit are read; blank lines and a response nobody asked
// for are passed over without a word; the server goes on.
func TestMCPServerReadsLargeFramesAndSkipsNoise(t *testing.T) {
	s := startMCP(t)
	s.send([]byte(""))
	s.send([]byte("  \t"))
	s.send([]byte(`{"jsonrpc":"2.0","id":99,"result":{}}`))
	pad := mcp.MaxFrame - 100
	s.send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"_meta":{"pad":"%s"}}}`, strings.Repeat("x", pad))))
	if r := s.next("reply to a ping just under the limit"); string(r.ID) != `"big"` || r.Error != nil {
		t.Errorf("a %d-byte frame: %s %+v", pad, r.ID, r.Error)
	}
	s.send([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r"))
	if r := s.next("reply to a CRLF line"); string(r.ID) != `"crlf"` || r.Error != nil {
		t.Errorf("CRLF: %s %+v", r.ID, r.Error)
	}
}
