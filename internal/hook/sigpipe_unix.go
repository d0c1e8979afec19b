//go:build unix

package hook

import (
	"os/signal"
	"syscall"
)

// IgnoreSIGPIPE keeps a hook (or capture) alive when the client has closed
// its end of stdout: the write fails instead of the process dying of
// SIGPIPE (exit 141), which the client would see as a failed hook. Only
// these two paths ignore it; the other commands still stop quietly when
// piped into `head`.
func IgnoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
