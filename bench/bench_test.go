package bench

import (
	"strings"
	"testing"
)

// benchSides runs each side as a sub-benchmark named impl=<side>, so that
// benchstat can compare them with -col /impl.
func benchSides(b *testing.B, sides []Side) {
	for _, s := range sides {
		b.Run("impl="+strings.ReplaceAll(s.Name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			s.Op(b.N)
		})
	}
}
