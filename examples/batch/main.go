// Command batch waits for 2,000 EC2-style instances to be running with
// one DescribeInstances call per 100 of them, instead of one call each:
// waiter.Batch coalesces the instances whose next poll is due into calls
// of at most 100 IDs, under the API's rate limit, while each instance keeps
// its own waiter run (schedule, deadline, events, result).
//
//	go run ./examples/batch
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// The shapes of EC2's DescribeInstances, as aws-sdk-go-v2 generates them:
// pointer fields and typed string enums.
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
	DescribeInstancesInput  struct{ InstanceIds []string }
	DescribeInstancesOutput struct{ Reservations []Reservation }
)

// instanceRunning is EC2's InstanceRunning waiter, for one instance: the
// paths start at the Instance, not at the DescribeInstances output.
var instanceRunning = waiter.Definition{
	Name: "InstanceRunning",
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State.Name", classify.StringEquals, "running")},
		{State: classify.Failure, Matcher: classify.OnOutput("State.Name", classify.StringEquals, "terminated")},
		{State: classify.Retry, Matcher: classify.OnErrorType("InvalidInstanceID.NotFound")},
	},
}

// simulatedEC2 answers DescribeInstances for up to 1,000 IDs a call. An
// instance is unknown to the API for its first few hundred milliseconds
// (eventual consistency), pending, then running; one in a hundred is
// terminated instead.
type simulatedEC2 struct {
	start   time.Time
	knownAt map[string]time.Duration
	readyAt map[string]time.Duration
	doomed  map[string]bool
	mu      sync.Mutex
	calls   int
}

func (s *simulatedEC2) DescribeInstances(ctx context.Context, in *DescribeInstancesInput) (*DescribeInstancesOutput, error) {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	if len(in.InstanceIds) > 1000 {
		return nil, errors.New("InvalidParameterValue: at most 1000 instance IDs")
	}
	out := &DescribeInstancesOutput{Reservations: []Reservation{{}}}
	now := time.Since(s.start)
	for _, id := range in.InstanceIds {
		if now < s.knownAt[id] {
			continue // not visible yet: DescribeInstances leaves it out
		}
		state := InstanceStateName("pending")
		if now >= s.readyAt[id] {
			state = "running"
			if s.doomed[id] {
				state = "terminated"
			}
		}
		out.Reservations[0].Instances = append(out.Reservations[0].Instances, Instance{InstanceId: &id, State: &InstanceState{Name: state}})
	}
	return out, nil
}

func main() {
	if err := run(context.Background(), os.Stdout, 2000, rand.Uint64()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0))
	ec2 := &simulatedEC2{start: time.Now(), knownAt: map[string]time.Duration{}, readyAt: map[string]time.Duration{}, doomed: map[string]bool{}}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("i-%017x", r.Uint64()>>4)
		ec2.knownAt[ids[i]] = time.Duration(r.IntN(500)) * time.Millisecond
		ec2.readyAt[ids[i]] = time.Duration(1000+r.IntN(4000)) * time.Millisecond
		ec2.doomed[ids[i]] = i%100 == 99
	}

	// The batch operation: one DescribeInstances for many IDs, each
	// instance found keyed by its ID. An ID left out of the answer is
	// judged as InvalidInstanceID.NotFound, the definition's own error
	// for an instance not visible yet (the default).
	describe := func(ctx context.Context, ids []string) (map[string]Instance, error) {
		resp, err := ec2.DescribeInstances(ctx, &DescribeInstancesInput{InstanceIds: ids})
		if err != nil {
			return nil, err
		}
		found := map[string]Instance{}
		for _, res := range resp.Reservations {
			for _, inst := range res.Instances {
				found[*inst.InstanceId] = inst
			}
		}
		return found, nil
	}
	b, err := waiter.NewBatch(instanceRunning, describe, waiter.BatchOptions[string, Instance]{Size: 100},
		waiter.WithPollRateLimit(rate.NewLimiter(20, 1)), // EC2 allows this account 20 calls/s
		waiter.WithDelays(200*time.Millisecond, time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		return err
	}
	runs := make([]*waiter.Run[Instance], n)
	for i, id := range ids {
		runs[i] = b.Add(ctx, id, time.Minute)
	}
	running, failed := 0, map[string]int{}
	for _, run := range runs {
		inst, err := run.Result()
		switch {
		case err == nil:
			running++
		case errors.Is(err, waiter.ErrFailure):
			failed[string(inst.State.Name)]++
		default:
			return err
		}
	}
	var states []string
	for s, c := range failed {
		states = append(states, fmt.Sprintf("%d %s", c, s))
	}
	sort.Strings(states)
	fmt.Fprintf(out, "%d instances running, %v, in %.1fs with %d DescribeInstances calls (%.0f instances a call)\n",
		running, states, time.Since(ec2.start).Seconds(), ec2.calls, float64(len(ids))/float64(ec2.calls)*float64(avgPolls(runs)))
	return nil
}

// avgPolls is the mean number of polls of each instance.
func avgPolls(runs []*waiter.Run[Instance]) float64 {
	total := 0
	for _, r := range runs {
		total += r.Checkpoint().Attempts
	}
	return float64(total) / float64(len(runs))
}
