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
// first, until fn returns false, the start of the file, or budget bytes
// read (0: no limit): the latest state of a large transcript is in its
// last lines. A line longer than maxLine (0: no limit) is skipped without
// being held. It returns the offset just after the last complete line:
// where forward reading resumes; -1 when it found none. fn must not keep
// line, whose bytes are reused.
func ScanBack(f *os.File, size, budget int64, maxLine int, fn func(line []byte) bool) (end int64, err error) {
	if budget <= 0 {
		budget = size
	}
	var carry []byte // the start of the line cut by the previous chunk
	long := false    // carry was dropped: the line is too long
	pos := size
	end = -1
	buf := make([]byte, backChunk)
	for pos > 0 && size-pos < budget {
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
			switch {
			case end < 0:
				end = pos + int64(i) + 1 // the rest is unterminated
			case long:
			case len(line) > 0 && !fn(line):
				return end, nil
			}
			data, long = data[:i], false
		}
		carry = bytes.Clone(data)
		if maxLine > 0 && len(carry) > maxLine {
			carry, long = nil, true
		}
	}
	if pos == 0 && len(carry) > 0 && !long && end >= 0 {
		fn(carry)
	}
	return end, nil
}
