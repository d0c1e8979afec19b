//go:build unix

package watch

import (
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/fsx/fsxtest"
)

// The monitor opens transcripts as regular files only: a link to
// /dev/zero or a FIFO in the transcript's place is refused at once.
func TestAdvanceRefusesWhatIsNotARegularFile(t *testing.T) {
	for _, path := range fsxtest.NotRegular(t) {
		var p Progress
		if err := p.Advance(path); err == nil || p.Cursor.Offset != 0 {
			t.Errorf("%s: err %v, cursor %+v; want it refused", path, err, p.Cursor)
		}
	}
}
