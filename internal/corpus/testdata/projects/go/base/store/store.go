// Package store keeps the shop's stock.
package store

import "fmt"

// Stock maps an item to its count.
type Stock map[string]int

// Take removes n of item, or fails when there are fewer.
func (s Stock) Take(item string, n int) error {
	if s[item] < n {
		return fmt.Errorf("take %d %s: only %d left", n, item, s[item])
	}
	s[item] -= n
	return nil
}

// Total is the number of items in stock.
func (s Stock) Total() int {
	t := 0
	for _, n := range s {
		t += n
	}
	return t
}
