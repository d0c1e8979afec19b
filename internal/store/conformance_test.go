package store_test

import (
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

// TestConformance runs the suite every backend must pass against the local
// store (SQLite and the blob folder).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ctxkeep.Store { return storetest.Local(t, t.TempDir()) })
}
