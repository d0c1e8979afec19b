package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrame is the longest message the server reads: one line of at most
// 4 MiB (a tool call's arguments are a few hundred bytes). A longer line is
// refused with an error, without being kept in memory, and the server goes
// on.
const MaxFrame = 4 << 20

// The server's own framing of MCP's stdio transport — one JSON-RPC message
// a line — in front of the SDK. The SDK's stdio transport reads the stream
// with a JSON decoder and ends the session at the first message it cannot
// decode (invalid JSON, a batch after 2025-06-18, an object id, a missing
// "jsonrpc", NUL bytes, UTF-16…): the process exits with no reply, and the
// client loses the tools for the rest of its session. Here each line is
// read within MaxFrame, checked, and answered with the JSON-RPC error it
// calls for when it is not a message the server can take (-32700 when it
// is not JSON, -32600 when it is JSON but not a request, a notification or
// a response); only messages that pass go on to the SDK.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (t stdio) Connect(context.Context) (sdk.Connection, error) {
	c := &frames{out: t.out, lines: make(chan frame), closed: make(chan struct{}), answered: make(chan struct{}, 1)}
	go c.read(t.in)
	return c, nil
}

// frames is the connection: lines in, messages out, one write at a time.
type frames struct {
	out       io.Writer
	writing   sync.Mutex
	lines     chan frame
	closed    chan struct{}
	closeOnce sync.Once
	// calls counts the calls read and not answered yet: at the end of
	// the input, Read waits for their answers before it says EOF, so that
	// a client that writes its calls and closes stdin (a script, `echo …
	// | ctxkeep mcp`) still gets them.
	pending  sync.Mutex
	calls    int           // guarded by pending
	answered chan struct{} // signalled (without blocking) at each answer
}

// drainWait is the longest Read waits, at the end of the input, for the
// answers to the calls in progress.
const drainWait = 30 * time.Second

// frame is one line read, without its end; tooLong when it was longer
// than MaxFrame (and not kept); err ends the stream (io.EOF: the client
// hung up).
type frame struct {
	line    []byte
	tooLong bool
	err     error
}

// read reads lines until the stream ends or the connection is closed. It
// runs apart so that Close unblocks a Read waiting for input, which a
// read of stdin cannot be made to do.
func (c *frames) read(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		f := readLine(r)
		select {
		case c.lines <- f:
		case <-c.closed:
			return
		}
		if f.err != nil {
			return
		}
	}
}

// readLine reads one line, keeping at most MaxFrame bytes of it.
func readLine(r *bufio.Reader) frame {
	var f frame
	for {
		part, err := r.ReadSlice('\n')
		if !f.tooLong {
			if len(f.line)+len(part) > MaxFrame+2 { // the line's end ("\r\n") is not counted
				f.line, f.tooLong = nil, true
			} else {
				f.line = append(f.line, part...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
			f.line = bytes.TrimRight(f.line, "\r\n")
			return f
		case len(f.line) > 0 || f.tooLong: // the last line, without its end: read it, then the end
			return f
		default:
			f.err = err
			return f
		}
	}
}

// Read returns the next message the SDK can take, answering the others.
func (c *frames) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f := <-c.lines:
			if f.err != nil {
				c.drain(ctx)
				return nil, f.err
			}
			msg, refusal := check(f)
			if refusal != nil {
				if err := c.writeLine(refusal); err != nil {
					return nil, err
				}
				continue
			}
			if msg != nil {
				if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
					c.pending.Lock()
					c.calls++
					c.pending.Unlock()
				}
				return msg, nil
			}
		}
	}
}

// Write writes one message, one line.
func (c *frames) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	if _, ok := msg.(*jsonrpc.Response); ok {
		defer c.answer()
	}
	return c.writeLine(data)
}

// answer counts one call answered.
func (c *frames) answer() {
	c.pending.Lock()
	c.calls = max(c.calls-1, 0)
	c.pending.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

func (c *frames) inProgress() int {
	c.pending.Lock()
	defer c.pending.Unlock()
	return c.calls
}

// drain waits for the answers to the calls in progress, at most
// drainWait.
func (c *frames) drain(ctx context.Context) {
	timeout := time.NewTimer(drainWait)
	defer timeout.Stop()
	for c.inProgress() > 0 {
		select {
		case <-c.answered:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		case <-timeout.C:
			return
		}
	}
}

func (c *frames) writeLine(data []byte) error {
	c.writing.Lock()
	defer c.writing.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

func (c *frames) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *frames) SessionID() string { return "" }

// check reads a line as a JSON-RPC 2.0 message: the message, or the
// error reply that refuses it; neither for a blank line.
func check(f frame) (jsonrpc.Message, []byte) {
	if f.tooLong {
		return nil, refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes: refused unread", MaxFrame))
	}
	line := bytes.TrimSpace(f.line)
	switch {
	case len(line) == 0:
		return nil, nil
	case !utf8.Valid(line):
		return nil, refuse(nil, jsonrpc.CodeParseError, "parse error: not UTF-8")
	case !json.Valid(line): // non-recursive, and refuses nesting past 10,000
		return nil, refuse(nil, jsonrpc.CodeParseError, "parse error: not one JSON value (or nested too deep)")
	case line[0] == '[':
		return nil, refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported")
	case line[0] != '{':
		return nil, refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC object")
	}
	var m map[string]json.RawMessage // members as written: no case folding
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, refuse(nil, jsonrpc.CodeParseError, "parse error: "+err.Error())
	}
	idRaw, hasID := m["id"]
	id, ok := usableID(idRaw)
	if hasID && !ok {
		return nil, refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: an id is a string or an integer")
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return nil, refuse(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if method, ok := m["method"]; ok {
		var name string
		if json.Unmarshal(method, &name) != nil {
			return nil, refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: the method is not a string")
		}
		if p, ok := m["params"]; ok && !structured(p) {
			return nil, refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: params must be an object or an array")
		}
	} else {
		_, result := m["result"]
		_, failed := m["error"]
		if id == nil || string(id) == "null" || result == failed {
			return nil, refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: neither a request, a notification nor a response")
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return msg, nil
}

// usableID reports whether raw is an id the server can answer with: a
// string, an integer that fits in 64 bits, or null (a notification, as the
// SDK takes it). It returns the id as JSON for an error reply (nil when
// there is none).
func usableID(raw json.RawMessage) (json.RawMessage, bool) {
	if raw == nil {
		return nil, true
	}
	switch raw[0] {
	case 'n':
		return raw, true
	case '"':
		return raw, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		// The SDK reads a number as a float64: an integer past 2^53 would
		// come back as another.
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n <= 1<<53 && n >= -(1<<53) {
			return raw, true
		}
	}
	return nil, false
}

// structured reports whether raw is an object or an array.
func structured(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
}

// refuse is the error reply to a message: its id when it had a usable one,
// null otherwise.
func refuse(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{"2.0", id, struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return out
}
