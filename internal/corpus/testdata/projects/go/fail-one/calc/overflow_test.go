package calc

import "testing"

func TestAddLarge(t *testing.T) {
	if got := Add(1<<62, 1<<62); got <= 0 {
		t.Errorf("Add(1<<62, 1<<62) = %d, want a positive sum", got)
	}
}
