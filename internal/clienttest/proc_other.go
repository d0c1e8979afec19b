//go:build !unix

package clienttest

import "os/exec"

// KillGroupOnCancel leaves the default: only the client itself is killed.
func KillGroupOnCancel(*exec.Cmd) {}
