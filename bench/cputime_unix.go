//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used so far, user and
// system, every thread counted.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
