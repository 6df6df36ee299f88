package bench

import (
	"testing"
	"time"
)

// BenchmarkPoll is row 4a for go test: see pollSides.
func BenchmarkPoll(b *testing.B) { benchSides(b, pollSides(time.Nanosecond, false)) }

// BenchmarkPollCancellable is row 4c: the runs under a caller's context
// that can be cancelled.
func BenchmarkPollCancellable(b *testing.B) { benchSides(b, pollSides(time.Nanosecond, true)) }
