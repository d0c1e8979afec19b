package postgres_test

import (
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

// TestConformance runs the suite every backend must pass against the team
// archive, each test in a schema of its own.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ctxkeep.Store { return pgtest.Open(t) })
}
