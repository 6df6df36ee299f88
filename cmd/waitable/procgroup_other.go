//go:build !unix

package main

import "os/exec"

// inOwnGroup does nothing where there are no process groups: cancelling
// the call kills the command alone.
func inOwnGroup(*exec.Cmd) (cleanup func()) { return func() {} }
