package bench

import (
	"fmt"
	"testing"

	"github.com/waitable/waitable/classify"
)

// BenchmarkMatcher is row 3 for go test: see matcherSides.
func BenchmarkMatcher(b *testing.B) { benchSides(b, matcherSides(fleetOutput(1000))) }

// BenchmarkMatcherRunning is row 3b for go test.
func BenchmarkMatcherRunning(b *testing.B) { benchSides(b, matcherSides(runningFleet(1000))) }

func TestMatchersAgree(t *testing.T) {
	set, _ := classify.Compile[any, *DescribeInstancesOutput](instanceRunning)
	outs := map[string]*DescribeInstancesOutput{"none": {}, "no reservation's instances": {Reservations: make([]Reservation, 2)}}
	for _, n := range []int{1, 10, 1000} {
		outs[fmt.Sprintf("%d, the last pending", n)] = fleetOutput(n)
		outs[fmt.Sprintf("%d running", n)] = runningFleet(n)
	}
	for _, state := range []InstanceStateName{"shutting-down", "terminated", "stopping"} {
		out := runningFleet(10)
		out.Reservations[1].Instances[1].State.Name = state
		outs["10, one "+string(state)] = out
	}
	out := runningFleet(10)
	out.Reservations[0].Instances[0].State = nil
	outs["10 running, one without a state"] = out
	out = runningFleet(1)
	out.Reservations[0].Instances[0].State = nil
	outs["1 without a state"] = out
	for name, out := range outs {
		a, b, c := set.Match(nil, out, nil).Index, searchMatch(out), handMatch(out)
		if a != b || b != c {
			t.Errorf("%s: waitable %d, jmespath %d, hand-written %d", name, a, b, c)
		}
	}
}
