//go:build !unix

package cli

func ignoreSIGPIPE() {} // no SIGPIPE to die of
