package store

import "github.com/ctxkeep/ctxkeep"

// Change is a chunk with its change number (ctxkeep.Change).
type Change = ctxkeep.Change
