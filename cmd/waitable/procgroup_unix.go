//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// inOwnGroup runs cmd in a process group of its own, and makes its
// cancellation end the whole group, as timeout(1) does: SIGTERM to the
// group when the call is cancelled (its deadline, the wait's, a signal),
// and SIGKILL to what is left of it once the command has returned.
func inOwnGroup(cmd *exec.Cmd) (cleanup func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	return func() {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
}
