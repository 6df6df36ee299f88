//go:build !unix

package bench

import "time"

var processStart = time.Now()

// cpuTime falls back to wall time where getrusage is missing: ratios
// then carry the noise of wall time.
func cpuTime() time.Duration { return time.Since(processStart) }
