package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

func chunkOf(session, project string, turn int, body string) ctxkeep.Chunk {
	return ctxkeep.Chunk{Key: fmt.Sprintf("k%s%d", session, turn), SessionID: session, Project: project,
		Kind: ctxkeep.KindTurn, Turn: turn, Body: body}
}

// ChunksAfter returns what was written past a change number, in the order
// written: a turn that grew comes again, even when it held the highest
// number (its row is deleted and inserted again); a chunk saved unchanged
// does not; only the project's folder and what is under it count.
func TestChunksAfter(t *testing.T) {
	ctx := context.Background()
	st := storetest.Local(t, t.TempDir())
	save := func(session string, cs ...ctxkeep.Chunk) {
		t.Helper()
		if _, err := st.SaveChunks(ctx, session, cs, ctxkeep.ArchiveCursor{Transcript: session}); err != nil {
			t.Fatal(err)
		}
	}
	save("s1", chunkOf("s1", "/p", 1, "one"), chunkOf("s1", "/p", 2, "two"))
	save("s2", chunkOf("s2", "/p/sub", 1, "under"), chunkOf("s2", "/px", 2, "beside"))
	save("s3", chunkOf("s3", "/p2", 1, "other"))
	first, err := st.ChunksAfter(ctx, "/p", 0, 100)
	if err != nil || len(first) != 3 || first[0].Body != "one" || first[2].Body != "under" {
		t.Fatalf("ChunksAfter(/p, 0) = %+v, %v; want one, two, under", first, err)
	}
	last := first[2].Seq
	save("s1", chunkOf("s1", "/p", 1, "one"), chunkOf("s1", "/p", 2, "two, grown"))
	save("s2", chunkOf("s2", "/p/sub", 1, "under"))
	next, err := st.ChunksAfter(ctx, "/p", last, 100)
	if err != nil || len(next) != 1 || next[0].Body != "two, grown" || next[0].Seq <= last {
		t.Fatalf("after a turn grew: %+v, %v; want only the grown turn, numbered past %d", next, err, last)
	}
	// The grown turn was not the row with the highest number; now it is:
	// replacing it again must still move past the cursor.
	last = next[0].Seq
	save("s1", chunkOf("s1", "/p", 2, "two, grown again"))
	if again, err := st.ChunksAfter(ctx, "/p", last, 100); err != nil || len(again) != 1 || again[0].Seq <= last {
		t.Fatalf("replacing the chunk with the highest number: %+v, %v", again, err)
	}
	if page, err := st.ChunksAfter(ctx, "/p", 0, 2); err != nil || len(page) != 2 {
		t.Fatalf("limit 2: %d chunks, %v", len(page), err)
	}
}
