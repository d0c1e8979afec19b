//go:build unix

package transcript

import (
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/fsx/fsxtest"
)

// Transcripts are regular files: a FIFO, a device or a link (to /dev/zero,
// say) is refused at once, without reading a byte.
func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	for _, path := range fsxtest.NotRegular(t) {
		f, err := ReadFileLimited(path, Cursor{}, ReadLimits{Bytes: 1 << 20, Line: 1 << 10})
		if err == nil || len(f.Records) > 0 || f.Next.Offset != 0 {
			t.Errorf("%s: err %v, %d records, next %+v; want it refused", path, err, len(f.Records), f.Next)
		}
	}
}
