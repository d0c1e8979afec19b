package hook

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"
)

// readPayload reads one event from stdin. It stops as soon as a whole
// JSON object has arrived, without waiting for the end of the stream: a
// client that keeps stdin open after its payload is still answered. It
// reads at most limit bytes (a larger payload is refused without reading
// the rest) and waits at most wait: a client that never finishes its
// payload is passed through rather than waited on until it kills us.
//
// The read runs in a goroutine so that the wait can end it; when it does,
// the goroutine is left blocked on stdin and the process exits under it.
func readPayload(r io.Reader, limit int64, wait time.Duration) ([]byte, error) {
	type result struct {
		payload []byte
		err     error
	}
	done := make(chan result, 1)
	go func() {
		b, err := readObject(r, limit)
		done <- result{b, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.payload, res.err
	case <-timer.C:
		return nil, fmt.Errorf("no whole payload on stdin after limits.hook_input_wait (%s)", wait)
	}
}

// readObject reads r until a whole JSON object has arrived (returning it,
// without what may follow), until the end of the stream, or past limit.
func readObject(r io.Reader, limit int64) ([]byte, error) {
	var sc objectEnd
	// One buffer for any payload up to the limit, read in place: the
	// memory is reserved, not touched, so only the pages the payload
	// fills are ever faulted in (a fresh process's heap comes zeroed from
	// the kernel), and nothing is copied as it grows. Past firstRead (a
	// limit set very high), the buffer doubles.
	b := make([]byte, 0, min(limit+1, firstRead))
	for {
		if len(b) == cap(b) { // double, up to one byte past the limit
			b = slices.Grow(b, int(min(int64(len(b)), limit+1-int64(len(b)))))
		}
		room := min(int64(cap(b)-len(b)), limit+1-int64(len(b)))
		n, err := r.Read(b[len(b) : len(b)+int(room)])
		b = b[:len(b)+n]
		if end, ok := sc.scan(b); ok && int64(end) <= limit {
			return b[:end], nil
		}
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("payload over limits.hook_input_bytes (%d bytes)", limit)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
	}
}

// firstRead is the most stdin's buffer reserves up front.
const firstRead = 64 << 20

// objectEnd finds where the JSON value at the start of a stream ends, one
// read at a time, without decoding it: it follows only string quotes and
// bracket depth, and skips through strings with IndexByte, so a megabyte
// of tool output costs about a memchr. The decoder checks everything
// else. Input that does not start with '{' or '[' ends the scan at once
// (the decoder then says what is wrong with it).
type objectEnd struct {
	pos      int // bytes of the stream scanned so far
	depth    int
	inString bool
}

// scan continues over b (the whole stream so far) and returns the end of
// the value, once it has one.
func (s *objectEnd) scan(b []byte) (end int, ok bool) {
	for s.pos < len(b) {
		if s.inString {
			i := bytes.IndexByte(b[s.pos:], '"')
			if i < 0 {
				s.pos = len(b)
				return 0, false
			}
			s.pos += i + 1
			s.inString = escaped(b, s.pos-1)
			continue
		}
		c := b[s.pos]
		s.pos++
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '{' || c == '[':
			s.depth++
		case s.depth == 0:
			return s.pos, true // not an object: let the decoder say so
		case c == '"':
			s.inString = true
		case c == '}' || c == ']':
			if s.depth--; s.depth == 0 {
				return s.pos, true
			}
		}
	}
	return 0, false
}

// escaped reports whether the quote at b[i] is escaped: preceded by an odd
// number of backslashes.
func escaped(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}
