package store

import "testing"

func TestRemove(t *testing.T) {
	s := Stock{"fig": 2}
	if err := s.Remove("fig", 1); err != nil {
		t.Fatal(err)
	}
	var n string = s.Total()
	_ = n
}
