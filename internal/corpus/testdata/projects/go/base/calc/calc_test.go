package calc

import (
	"errors"
	"log"
	"os"
	"runtime/debug"
	"testing"
)

func TestAdd(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b, want int
	}{
		{"positive", 1, 2, 3},
		{"negative", -1, -2, -3},
		{"zero", 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
			}
		})
	}
}

func TestDivByZero(t *testing.T) {
	_, err := Div(1, 0)
	if !errors.Is(err, ErrDivByZero) {
		t.Fatalf("Div(1, 0): %v", err)
	}
	// Noise that looks like a failure: the expected error, logged.
	t.Logf("error: %v (expected)", err)
	log.New(os.Stderr, "shop: ", 0).Printf("ERROR retrying after FAIL: upstream said 503 (this is a log line, not a failure)")
}

func TestParseList(t *testing.T) {
	for _, in := range []string{"1,2,3", " 1, 2 ,3 ", "1,,2,3"} {
		t.Run(in, func(t *testing.T) {
			got, err := ParseList(in)
			if err != nil || len(got) < 3 && in != "1,,2,3" {
				t.Errorf("ParseList(%q) = %v, %v", in, got, err)
			}
		})
	}
	if _, err := ParseList("1,x"); err == nil {
		t.Error("ParseList(\"1,x\") did not fail")
	} else {
		t.Log("got the expected error:", err)
	}
}

func TestMustPositivePanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("MustPositive(-1) did not panic")
		}
		// An expected panic, with the stack trace someone left in the log.
		t.Logf("recovered: panic: %v\n%s", r, debug.Stack())
	}()
	MustPositive(-1)
}

func TestNetwork(t *testing.T) {
	t.Skip("skipping: needs the network (FAIL-safe mode)")
}
