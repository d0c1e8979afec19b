package ctxkeep

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseHash(t *testing.T) {
	h := Sum([]byte("x"))
	for _, in := range []string{string(h), "sha256:" + string(h), strings.ToUpper(string(h))} {
		if got, err := ParseHash(in); err != nil || got != h {
			t.Errorf("ParseHash(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "abc", "../../etc/passwd", strings.Repeat("g", 64), string(h) + "0"} {
		if _, err := ParseHash(in); err == nil {
			t.Errorf("ParseHash(%q) accepted", in)
		}
	}
}

func TestPinLevels(t *testing.T) {
	for _, l := range []PinLevel{PinNone, PinSoft, PinHard} {
		got, err := ParsePinLevel(l.String())
		if err != nil || got != l {
			t.Errorf("ParsePinLevel(%q) = %v, %v", l, got, err)
		}
	}
	if !(PinNone < PinSoft && PinSoft < PinHard) {
		t.Error("levels are not ordered by strength")
	}
	if _, err := ParsePinLevel("bogus"); err == nil {
		t.Error("ParsePinLevel accepted bogus")
	}
}

func TestErrorf(t *testing.T) {
	inner := errors.New("disk on fire")
	err := Errorf(ErrNotFound, "no such entry: %q (%w)", "abc", inner)
	if err.Error() != `no such entry: "abc" (disk on fire)` {
		t.Errorf("message = %q", err)
	}
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, inner) || errors.Is(err, ErrCorrupt) {
		t.Errorf("errors.Is does not match the kind and the wrapped error only: %v", err)
	}
	if wrapped := fmt.Errorf("show: %w", err); !errors.Is(wrapped, ErrNotFound) {
		t.Error("the kind is lost when wrapped again")
	}
}
