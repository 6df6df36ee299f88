package bench

import (
	"testing"

	"github.com/waitable/waitable/classify"
)

// BenchmarkMatcher is row 3 for go test: see matcherSides.
func BenchmarkMatcher(b *testing.B) { benchSides(b, matcherSides()) }

func TestMatchersAgree(t *testing.T) {
	set, _ := classify.Compile[any, *DescribeInstancesOutput](instanceRunning)
	for _, n := range []int{1, 10, 1000} {
		out := fleetOutput(n)
		a, b, c := set.Match(nil, out, nil).Index, searchMatch(out), handMatch(out)
		if a != b || b != c {
			t.Errorf("%d instances: waitable %d, jmespath %d, hand-written %d", n, a, b, c)
		}
	}
}
