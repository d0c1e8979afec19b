package calc

import "testing"

func TestParseListStrict(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"1,2", 2},
		{"", 1},
		{"3, -4", 2},
		{"5 6", 2},
	} {
		t.Run(c.in, func(t *testing.T) {
			t.Logf("parsing %q", c.in)
			got, err := ParseList(c.in)
			if err != nil {
				t.Fatalf("ParseList(%q): %v", c.in, err)
			}
			if len(got) != c.want {
				t.Errorf("ParseList(%q) has %d numbers, want %d", c.in, len(got), c.want)
			}
		})
	}
}

func TestDivRounds(t *testing.T) {
	got, _ := Div(7, 2)
	if got != 4 {
		t.Errorf("Div(7, 2) = %d, want 4 (rounded)", got)
	}
	t.Log("FAIL is not printed by this line but by t.Errorf above")
}
