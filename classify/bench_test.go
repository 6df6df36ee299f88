package classify_test

import (
	"fmt"
	"testing"

	"github.com/jmespath/go-jmespath"

	"github.com/waitable/waitable/classify"
)

// bigOutput is a DescribeInstances output with n instances, all running but
// the last, which is pending: every acceptor must look at every instance.
func bigOutput(n int) *DescribeInstancesOutput {
	states := make([]InstanceStateName, n)
	for i := range states {
		states[i] = InstanceStateRunning
	}
	states[n-1] = InstanceStatePending
	return instances(states...)
}

var sinkMatch classify.Match

// BenchmarkInstanceRunning matches EC2 InstanceRunning's acceptors on a
// typed output of 1,000 instances: the compiled Set against jmespath.Search
// on the same struct, called per acceptor per attempt, the way aws-sdk-go-v2's
// generated waiters did until 2024 (compare within one run).
func BenchmarkInstanceRunning(b *testing.B) {
	out := bigOutput(1000)
	in := &DescribeInstancesInput{}
	b.Run("impl=waitable", func(b *testing.B) {
		set, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput](instanceRunning)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			sinkMatch = set.Match(in, out, nil)
		}
		if sinkMatch.Index != -1 {
			b.Fatalf("matched %d", sinkMatch.Index)
		}
	})
	b.Run("impl=jmespath.Search", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			idx, err := sdkStyleMatch(out)
			if err != nil {
				b.Fatal(err)
			}
			if idx != -1 {
				b.Fatalf("matched %d", idx)
			}
		}
	})
}

// sdkStyleMatch is the pre-2024 aws-sdk-go-v2 generated code for the
// InstanceRunning acceptors: jmespath.Search per acceptor, type assertions
// on the typed enum.
func sdkStyleMatch(out *DescribeInstancesOutput) (int, error) {
	const path = "Reservations[].Instances[].State.Name"
	for i, a := range instanceRunning[:4] {
		v, err := jmespath.Search(path, out)
		if err != nil {
			return 0, fmt.Errorf("error evaluating waiter state: %w", err)
		}
		list, ok := v.([]interface{})
		if !ok {
			return 0, fmt.Errorf("waiter comparator expected list got %T", v)
		}
		expected := a.Matcher.Output.Expected
		all, any := len(list) > 0, false
		for _, x := range list {
			s, ok := x.(InstanceStateName)
			if !ok {
				return 0, fmt.Errorf("waiter comparator expected InstanceStateName value, got %T", x)
			}
			eq := string(s) == expected
			all = all && eq
			any = any || eq
		}
		if (a.Matcher.Output.Comparator == classify.AllStringEquals && all) || (a.Matcher.Output.Comparator == classify.AnyStringEquals && any) {
			return i, nil
		}
	}
	return -1, nil
}

// TestSDKStyleAgrees keeps the benchmark honest: both sides reach the same
// verdicts.
func TestSDKStyleAgrees(t *testing.T) {
	set, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput](instanceRunning)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []*DescribeInstancesOutput{bigOutput(10), instances("running"), instances("running", "terminated"), instances("stopping", "running")} {
		want, err := sdkStyleMatch(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := set.Match(nil, out, nil).Index; got != want {
			t.Errorf("Set.Match = %d, SDK-style = %d", got, want)
		}
	}
}

// BenchmarkGeneralPath measures an expression that goes through the data
// model conversion and go-jmespath (a filter with a function), on 100
// services.
func BenchmarkGeneralPath(b *testing.B) {
	out := &DescribeServicesOutput{}
	for range 100 {
		out.Services = append(out.Services, Service{Status: ptr("ACTIVE"), Deployments: []Deployment{{}}, RunningCount: 2, DesiredCount: 2})
	}
	set, err := classify.Compile[any, *DescribeServicesOutput]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("length(services[?!(length(deployments) == `1` && runningCount == desiredCount)]) == `0`", classify.BooleanEquals, "true")},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sinkMatch = set.Match(nil, out, nil)
	}
}
