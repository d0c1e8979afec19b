//go:build !unix

package codextest

import "os/exec"

// killGroupOnCancel leaves the default: only the client itself is killed.
func killGroupOnCancel(*exec.Cmd) {}
