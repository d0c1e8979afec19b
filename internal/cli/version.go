package cli

import "github.com/ctxkeep/ctxkeep/internal/hook"

// version is this build's version (hook.Version: the same in ctxkeep and
// ctxkeep-hook).
func version() string { return hook.Version() }
