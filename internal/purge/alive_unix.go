//go:build unix

package purge

import (
	"errors"
	"syscall"
)

// alive reports whether a process with pid exists (signal 0 checks without
// sending anything; EPERM means it exists but belongs to someone else).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
