//go:build !linux

package fsx

func exchange(from, to string, existed bool) error { return errNoExchange }
