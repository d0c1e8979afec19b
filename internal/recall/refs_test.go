package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

var ctx = context.Background()

func TestRecallRanges(t *testing.T) {
	st := storetest.Local(t, t.TempDir())
	for _, session := range []string{"aaaa1111", "aaaa2222", "bbbb3333"} {
		var cs []ctxkeep.Chunk
		for turn := 1; turn <= 3; turn++ {
			for step := 1; step <= 4; step++ {
				cs = append(cs, ctxkeep.Chunk{Key: fmt.Sprintf("k%s%d%d", session, turn, step), SessionID: session, Kind: ctxkeep.KindStep,
					Turn: turn, Step: step, Body: "b"})
			}
		}
		if _, err := st.SaveChunks(ctx, session, cs, ctxkeep.ArchiveCursor{Transcript: session}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ ref, want string }{
		{"kbbbb333323", "2.3"},
		{"bbbb:2", "2.1 2.2 2.3 2.4"},
		{"bbbb:2-3", "2.1 2.2 2.3 2.4 3.1 3.2 3.3 3.4"},
		{"bbbb:2.3", "2.3"},
		{"bbbb:2.2-3", "2.2 2.3"},
		{"bbbb:1.4-2.2", "1.4 2.1 2.2"},
		{"bbbb:3-9", "3.1 3.2 3.3 3.4"},
		{"aaaa1:1.1", "1.1"},
	} {
		cs, err := Recall(ctx, st, c.ref)
		var got []string
		for _, ch := range cs {
			got = append(got, Place(ch))
		}
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("Recall(%q) = %v, %v; want %s", c.ref, got, err, c.want)
		}
	}
	for _, c := range []struct {
		ref  string
		kind error
		says string
	}{
		{"aaaa:1", ctxkeep.ErrAmbiguous, "starts 2 sessions in the archive"},
		{"cccc:1", ctxkeep.ErrNotFound, `no session "cccc" in the archive`},
		{"bbbb:9", ctxkeep.ErrNotFound, "no archived turn 9"},
		{"kzzz", ctxkeep.ErrNotFound, ""},
	} {
		if _, err := Recall(ctx, st, c.ref); !errors.Is(err, c.kind) || !strings.Contains(fmt.Sprint(err), c.says) {
			t.Errorf("Recall(%q) = %v; want %v saying %q", c.ref, err, c.kind, c.says)
		}
	}
	for _, bad := range []string{"bbbb:", "bbbb:x", "bbbb:0", "bbbb:3-2", "bbbb:2.4-2", "bbbb:1.0"} {
		if _, err := Recall(ctx, st, bad); err == nil || errors.Is(err, ctxkeep.ErrNotFound) {
			t.Errorf("Recall(%q) = %v; want a bad range", bad, err)
		}
	}
}
