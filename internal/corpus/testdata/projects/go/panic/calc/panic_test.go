package calc

import "testing"

func TestTotalOfNegative(t *testing.T) {
	t.Log("checking a refund")
	if MustPositive(-5) != 5 {
		t.Error("wrong")
	}
}
