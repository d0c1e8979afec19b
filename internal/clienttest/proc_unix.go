//go:build unix

package clienttest

import (
	"os/exec"
	"syscall"
)

// KillGroupOnCancel runs cmd in its own process group and kills the whole
// group when the run is cancelled, so that hooks and Bash commands the
// client started do not outlive a timed-out run.
func KillGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
