package bench

import (
	"github.com/jmespath/go-jmespath"

	"github.com/waitable/waitable/classify"
)

// EC2 DescribeInstances output types, shaped as aws-sdk-go-v2 generates them.
type (
	InstanceStateName string
	InstanceState     struct {
		Code *int32
		Name InstanceStateName
	}
	Instance struct {
		InstanceId *string
		State      *InstanceState
	}
	Reservation             struct{ Instances []Instance }
	DescribeInstancesOutput struct{ Reservations []Reservation }
)

// instanceRunning is EC2's InstanceRunning waiter's output acceptors.
var instanceRunning = []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AllStringEquals, "running")},
	{State: classify.Failure, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AnyStringEquals, "shutting-down")},
	{State: classify.Failure, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AnyStringEquals, "terminated")},
	{State: classify.Failure, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AnyStringEquals, "stopping")},
}

// fleetOutput has n instances, all running but the last, which is
// pending: no acceptor matches, and every acceptor looks at every
// instance.
func fleetOutput(n int) *DescribeInstancesOutput {
	out := runningFleet(n)
	last := out.Reservations[len(out.Reservations)-1].Instances
	last[len(last)-1].State.Name = "pending"
	return out
}

// runningFleet has n instances, all running, three to a reservation: the
// success acceptor matches after one look at every instance.
func runningFleet(n int) *DescribeInstancesOutput {
	out := &DescribeInstancesOutput{}
	id := "i-0123456789"
	for i := range n {
		if i%3 == 0 {
			out.Reservations = append(out.Reservations, Reservation{})
		}
		r := &out.Reservations[len(out.Reservations)-1]
		r.Instances = append(r.Instances, Instance{InstanceId: &id, State: &InstanceState{Name: "running"}})
	}
	return out
}

//lint:ignore U1000 a sink: the compiler must not drop the benchmarked call
var sinkIndex int

// matcherSides are the sides of rows 3 and 3b: InstanceRunning's
// acceptors on the typed output out, one op per evaluation of all
// acceptors.
func matcherSides(out *DescribeInstancesOutput) []Side {
	set, err := classify.Compile[any, *DescribeInstancesOutput](instanceRunning)
	if err != nil {
		panic(err)
	}
	return []Side{
		{"waitable", func(n int) {
			for range n {
				sinkIndex = set.Match(nil, out, nil).Index
			}
		}},
		{"hand-written Go", func(n int) {
			for range n {
				sinkIndex = handMatch(out)
			}
		}},
		{"jmespath.Search per call", func(n int) {
			for range n {
				sinkIndex = searchMatch(out)
			}
		}},
	}
}

func searchMatch(out *DescribeInstancesOutput) int {
	for i, a := range instanceRunning {
		v, err := jmespath.Search(a.Matcher.Output.Path, out)
		if err != nil {
			panic(err)
		}
		list, _ := v.([]interface{})
		all, any := len(list) > 0, false
		for _, x := range list {
			eq := string(x.(InstanceStateName)) == a.Matcher.Output.Expected
			all, any = all && eq, any || eq
		}
		if (a.Matcher.Output.Comparator == classify.AllStringEquals && all) || (a.Matcher.Output.Comparator == classify.AnyStringEquals && any) {
			return i
		}
	}
	return -1
}

// handMatch is InstanceRunning's acceptors written by hand, as a
// competent Go programmer writes them for these types: the acceptors in
// their order, each its own pass over Reservations[].Instances[] (skipping
// an instance without a State, as the path's projection does), comparing
// State.Name with the acceptor's string; pathAll stops at the first
// instance in another state and needs at least one instance, pathAny stops
// at the first in its state. The compiler inlines allInState and
// anyInState, so each compares with a constant. It makes a pass per
// acceptor, as the acceptors are written; Waitable reads the path they
// share once, comparing each instance for all four (the first acceptor
// that matches, in order, still wins).
func handMatch(out *DescribeInstancesOutput) int {
	switch {
	case allInState(out, "running"):
		return 0
	case anyInState(out, "shutting-down"):
		return 1
	case anyInState(out, "terminated"):
		return 2
	case anyInState(out, "stopping"):
		return 3
	}
	return -1
}

// allInState reports whether out has an instance with a state and every
// such instance's state is name.
func allInState(out *DescribeInstancesOutput, name InstanceStateName) bool {
	n := 0
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			if in.State == nil {
				continue
			}
			if in.State.Name != name {
				return false
			}
			n++
		}
	}
	return n > 0
}

// anyInState reports whether an instance of out is in state name.
func anyInState(out *DescribeInstancesOutput, name InstanceStateName) bool {
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			if in.State != nil && in.State.Name == name {
				return true
			}
		}
	}
	return false
}
