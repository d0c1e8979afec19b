//go:build !unix

package hook

func PrivateFiles() {}
