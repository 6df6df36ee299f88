package bench

import (
	"testing"
	"time"
)

// BenchmarkPoll is row 4a for go test: see pollSides.
func BenchmarkPoll(b *testing.B) { benchSides(b, pollSides(time.Nanosecond)) }
