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

// fleetOutput has n instances, all running but the last, which is pending:
// every acceptor looks at every instance.
func fleetOutput(n int) *DescribeInstancesOutput {
	out := &DescribeInstancesOutput{}
	id := "i-0123456789"
	for i := range n {
		if i%3 == 0 {
			out.Reservations = append(out.Reservations, Reservation{})
		}
		name := InstanceStateName("running")
		if i == n-1 {
			name = "pending"
		}
		r := &out.Reservations[len(out.Reservations)-1]
		r.Instances = append(r.Instances, Instance{InstanceId: &id, State: &InstanceState{Name: name}})
	}
	return out
}

//lint:ignore U1000 a sink: the compiler must not drop the benchmarked call
var sinkIndex int

// matcherSides are row 3's sides: InstanceRunning's acceptors on a typed
// output of 1,000 instances, one op per evaluation of all acceptors.
func matcherSides() []Side {
	out := fleetOutput(1000)
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

func handMatch(out *DescribeInstancesOutput) int {
	for i, a := range instanceRunning {
		all, any, n := true, false, 0
		for _, r := range out.Reservations {
			for _, in := range r.Instances {
				if in.State == nil {
					continue
				}
				n++
				eq := string(in.State.Name) == a.Matcher.Output.Expected
				all, any = all && eq, any || eq
			}
		}
		if (a.Matcher.Output.Comparator == classify.AllStringEquals && all && n > 0) || (a.Matcher.Output.Comparator == classify.AnyStringEquals && any) {
			return i
		}
	}
	return -1
}
