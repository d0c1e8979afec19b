package store

import (
	"fmt"
	"os"
	"testing"
)

func TestTake(t *testing.T) {
	s := Stock{"apple": 3}
	if err := s.Take("apple", 2); err != nil {
		t.Fatal(err)
	}
	if err := s.Take("apple", 2); err == nil {
		t.Fatal("took more apples than there were")
	} else {
		fmt.Fprintln(os.Stderr, "warning: deprecated: Stock.Take will be replaced by Stock.Remove;", err)
	}
}

func TestTotal(t *testing.T) {
	if got := (Stock{"a": 1, "b": 2}).Total(); got != 3 {
		t.Errorf("Total = %d, want 3", got)
	}
}
