// Package claudecode knows how ctxkeep plugs into Claude Code: which
// settings file holds the hooks, how to register ctxkeep's handlers there
// and take them out again, and how to lay out a plugin folder instead.
//
// Settings files belong to the user, so edits are surgical: only ctxkeep's
// own handlers are added, updated or removed; every other key, its order,
// its numbers and its strings are kept as written; a file ctxkeep cannot
// parse is left alone; and a changed file is backed up, then replaced
// atomically.
package claudecode
