//go:build unix

package transcript

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Transcripts are regular files: a FIFO, a device or a link (to /dev/zero,
// say) is refused at once, without reading a byte.
func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{link, fifo, "/dev/zero"} {
		f, err := ReadFileLimited(path, Cursor{}, ReadLimits{Bytes: 1 << 20, Line: 1 << 10})
		if err == nil || len(f.Records) > 0 || f.Next.Offset != 0 {
			t.Errorf("%s: err %v, %d records, next %+v; want it refused", path, err, len(f.Records), f.Next)
		}
	}
}
