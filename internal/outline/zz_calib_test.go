package outline

import (
	"bytes"
	"testing"
)

func BenchmarkCalibLoop(b *testing.B) {
	src := goSource(b)
	var tbl [256]class
	tbl['"'], tbl['{'], tbl['}'], tbl['('], tbl[')'], tbl['/'] = 1, 1, 1, 1, 1, 1
	b.SetBytes(int64(len(src)))
	n := 0
	for b.Loop() {
		for _, c := range src {
			if tbl[c] != 0 {
				n++
			}
		}
	}
}

func BenchmarkCalibLines(b *testing.B) {
	src := goSource(b)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		n := 0
		for range lines(src) {
			n++
		}
	}
}

func BenchmarkCalibCount(b *testing.B) {
	src := goSource(b)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		bytes.Count(src, []byte("\n"))
	}
}
