// Package pin is what "keep this" means in ctxkeep: the pin levels of a
// stored output, the directives a user types in a prompt to set them
// (ccm:pin last|next|start|end, or the slash commands /pin-last …), and the
// pins that wait for outputs that do not exist yet ("next", and a
// "start" … "end" range).
//
// Levels order what prune may take: unpinned outputs go first, soft pins
// only once no unpinned output is left to take, hard pins never.
package pin

import "fmt"

// Level is how strongly a stored output is kept.
type Level int

const (
	None Level = iota // pruned by age and by size, first
	Soft              // pruned by size only, once nothing unpinned is left
	Hard              // never pruned automatically
)

var names = [...]string{None: "none", Soft: "soft", Hard: "hard"}

// DefaultLevel is the level of a pin that does not name one.
const DefaultLevel = Soft

func (l Level) String() string {
	if l < None || l > Hard {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return names[l]
}

// ParseLevel reads "none", "soft" or "hard".
func ParseLevel(s string) (Level, error) {
	for l, name := range names {
		if s == name {
			return Level(l), nil
		}
	}
	return None, fmt.Errorf("bad pin level %q: want none, soft or hard", s)
}

// LevelOf reads a level as stored in the index (entries.pin_level);
// anything it does not know counts as None.
func LevelOf(s string) Level {
	l, err := ParseLevel(s)
	if err != nil {
		return None
	}
	return l
}

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	*l = v
	return err
}
