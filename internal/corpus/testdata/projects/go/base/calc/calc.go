// Package calc is the arithmetic of a small shop.
package calc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrDivByZero is returned by Div for a zero divisor.
var ErrDivByZero = errors.New("division by zero")

// Add returns a+b.
func Add(a, b int) int { return a + b }

// Div returns a/b, or ErrDivByZero.
func Div(a, b int) (int, error) {
	if b == 0 {
		return 0, ErrDivByZero
	}
	return a / b, nil
}

// ParseList parses "1, 2,3" into its numbers.
func ParseList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("parse list: %w", err)
		}
		out = append(out, n)
	}
	return out, nil
}

// MustPositive returns n, and panics when n is negative.
func MustPositive(n int) int {
	if n < 0 {
		panic(fmt.Sprintf("negative value: %d", n))
	}
	return n
}
