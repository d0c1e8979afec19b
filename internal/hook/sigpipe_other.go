//go:build !unix

package hook

func IgnoreSIGPIPE() {} // no SIGPIPE to die of
