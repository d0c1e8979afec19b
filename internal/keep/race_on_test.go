//go:build race

package keep

// raceEnabled: the race detector slows SQLite (compiled to Go from wasm)
// about tenfold; the long evaluations run on a sample under it.
const raceEnabled = true
