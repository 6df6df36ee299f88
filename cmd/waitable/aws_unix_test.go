//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAWSSignal: a signal ends waitable aws as it ends exec: the CLI's
// run in flight is ended, the summary printed, and the exit status is
// 128+n.
func TestAWSSignal(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "aws.pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env, runs := fakeCLI(t, cliAnswer{Hang: fifo})
	cmd := exec.CommandContext(t.Context(), binary, "aws", "dynamodb", "table-exists", "--", "--table-name", "orders")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fifo) // blocks until the CLI's run is in flight
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 || !strings.Contains(stderr.String(), "waitable: interrupted") || len(runs()) != 1 {
		t.Errorf("exit %v after %d runs of the CLI, want 143 after 1, and the summary; stderr %q", err, len(runs()), stderr.String())
	}
	pid := strings.TrimSpace(string(b))
	if status, err := os.ReadFile("/proc/" + pid + "/status"); err == nil && !deadOrKilled(string(status)) {
		syscall.Kill(atoi(pid), syscall.SIGKILL)
		t.Errorf("the CLI's run %s outlived the wait:\n%s", pid, status)
	}
}
