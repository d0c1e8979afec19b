package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// backChunk is how much ScanBack reads at a time.
const backChunk = 256 << 10

// ScanBack calls fn with each complete line of f (size bytes long), last
// first, until fn returns false or the start of the file: the latest state
// of a large transcript is in its last lines. It returns the offset just
// after the last complete line: where forward reading resumes. fn must not
// keep line, whose bytes are reused.
func ScanBack(f *os.File, size int64, fn func(line []byte) bool) (end int64, err error) {
	var carry []byte // the start of the line cut by the previous chunk
	pos := size
	end = -1
	buf := make([]byte, backChunk)
	for pos > 0 {
		n := int64(min(backChunk, pos))
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%s: %w", f.Name(), err)
		}
		data := append(buf[:n:n], carry...)
		for {
			i := bytes.LastIndexByte(data, '\n')
			if i < 0 {
				break
			}
			line := data[i+1:]
			if end < 0 {
				end = pos + int64(i) + 1 // the rest is unterminated
			} else if len(line) > 0 && !fn(line) {
				return end, nil
			}
			data = data[:i]
		}
		carry = bytes.Clone(data)
	}
	if end < 0 {
		return 0, nil // not one complete line
	}
	if len(carry) > 0 {
		fn(carry)
	}
	return end, nil
}
