//go:build !unix

package clienttest

import "os/exec"

// killGroupOnCancel leaves the default: only the client itself is killed.
func killGroupOnCancel(*exec.Cmd) {}
