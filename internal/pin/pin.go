// Package pin is what "keep this" means in ctxkeep: the pin levels of a
// stored output, the directives a user types in a prompt to set them
// (ccm:pin last|next|start|end, or the slash commands /pin-last …), and the
// pins that wait for outputs that do not exist yet ("next", and a
// "start" … "end" range).
//
// Levels order what prune may take: unpinned outputs go first, soft pins
// only once no unpinned output is left to take, hard pins never.
package pin

import "github.com/ctxkeep/ctxkeep"

// DefaultLevel is the level of a pin that does not name one.
const DefaultLevel = ctxkeep.PinSoft

// Merge is the pin an output gets from a pin request: the level asked
// for when given (levelSet), else the default without lowering the level
// the output has (pinning a hard pin again keeps it hard); the reason
// given, else the one it has, unless the pin is removed.
func Merge(e ctxkeep.Entry, level ctxkeep.PinLevel, levelSet bool, reason string) (ctxkeep.PinLevel, string) {
	if !levelSet {
		level = max(level, e.PinLevel)
	}
	switch {
	case level == ctxkeep.PinNone:
		return level, ""
	case reason == "":
		return level, e.PinReason
	}
	return level, reason
}
