package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parse reads a setting's text as its kind.
func parse(k kind, s string) (int64, error) {
	s = strings.TrimSpace(s)
	switch k {
	case boolKind:
		switch {
		case Truthy(s):
			return 1, nil
		case falsy(s):
			return 0, nil
		}
		return 0, fmt.Errorf("want true or false, got %q", s)
	case countKind:
		n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("want a whole number, got %q", s)
		}
		return n, nil
	case bytesKind:
		return parseBytes(s)
	case durationKind:
		d, err := ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("want a duration such as \"2d\", \"24h\", \"90m\" or \"500ms\", got %q", s)
		}
		return int64(d), nil
	}
	return 0, errors.New("unknown kind")
}

// ParseDuration reads a duration as Go writes one ("90m", "1h30m",
// "500ms") or in days ("2d", "1.5d"), the unit retention is thought in.
// The config and `ctxkeep prune --max-age` read durations with it.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 || n > 100*365 {
			return 0, fmt.Errorf("bad duration %q: want a number of days", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	return time.ParseDuration(s)
}

// byteUnits in the order format prefers them: decimal first, so "250MB"
// does not come back as "250000KB".
// Truthy reports whether s spells "on": 1, true, yes or on, in any case.
// The hook reads CTXKEEP_DISABLE with it before loading anything else.
func Truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func falsy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "false", "no", "off":
		return true
	}
	return false
}

var byteUnits = []struct {
	suffix string
	mult   int64
}{{"GB", gb}, {"MB", mb}, {"KB", kb}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// parseBytes reads 1048576, "250MB" (decimal units) or "16MiB" (binary units).
func parseBytes(s string) (int64, error) {
	num, mult := s, int64(1)
	best := 0
	for _, u := range byteUnits {
		if len(u.suffix) > best && len(s) > len(u.suffix) && strings.EqualFold(s[len(s)-len(u.suffix):], u.suffix) {
			num, mult, best = s[:len(s)-len(u.suffix)], u.mult, len(u.suffix)
		}
	}
	if best == 0 && len(s) > 1 && (s[len(s)-1] == 'B' || s[len(s)-1] == 'b') {
		num = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(num), "_", ""), 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a size such as 1048576, \"250MB\" or \"16MiB\", got %q", s)
	}
	return n * mult, nil
}

// format renders a value the way a user would write it.
func format(k kind, v int64) string {
	switch k {
	case boolKind:
		return strconv.FormatBool(v != 0)
	case bytesKind:
		for _, u := range byteUnits {
			if v != 0 && v%u.mult == 0 {
				return strconv.FormatInt(v/u.mult, 10) + u.suffix
			}
		}
	case durationKind:
		return FormatDuration(time.Duration(v))
	}
	return strconv.FormatInt(v, 10)
}

// FormatDuration writes "24h", "90m", "2s" or "500ms" rather than Go's "24h0m0s".
func FormatDuration(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d != 0 && d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.name
		}
	}
	return d.String()
}

// Size is the number of bytes of a value of a size setting (limits.*_bytes,
// team.max_output_bytes), for a person to read it in one unit; ok is false
// for any other setting.
func Size(v Value) (n int64, ok bool) {
	for _, s := range settings {
		if s.key == v.Key && s.kind == bytesKind {
			n, err := parseBytes(v.Value)
			return n, err == nil
		}
	}
	return 0, false
}
