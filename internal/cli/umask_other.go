//go:build !unix

package cli

func privateFiles() {}
