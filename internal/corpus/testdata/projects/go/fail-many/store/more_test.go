package store

import "testing"

func TestTakeAll(t *testing.T) {
	s := Stock{"pear": 1}
	if err := s.Take("pear", 2); err != nil {
		t.Errorf("Take: %v", err)
	}
}
