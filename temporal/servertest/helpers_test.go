package servertest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// The jobs the tests wait for (as package temporal's own tests do).

type JobInput struct{ ID string }
type JobOutput struct {
	ID    string
	State string
}

var jobDone = waiter.Definition{
	Name: "JobDone",
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "failed")},
	},
}

// job is an operation whose job reaches final after ready calls (never,
// if ready is 0).
func job(ready int, final string, calls *atomic.Int32) func(context.Context, JobInput) (JobOutput, error) {
	return func(ctx context.Context, in JobInput) (JobOutput, error) {
		n := int(calls.Add(1))
		if ready > 0 && n >= ready {
			return JobOutput{ID: in.ID, State: final}, nil
		}
		return JobOutput{ID: in.ID, State: "running"}, nil
	}
}

// groupJob is a job service's answer.
type groupJob struct{ ID, State string }

// jobSpec is how a job answers: final after ready calls (never, if 0).
type jobSpec struct {
	ready int
	final string
}

// jobs is an operation on jobs by ID, counting the calls of each.
type jobs struct {
	specs map[string]jobSpec
	mu    sync.Mutex
	calls map[string]int
}

func newJobs(specs map[string]jobSpec) *jobs { return &jobs{specs: specs, calls: map[string]int{}} }

func (j *jobs) op(_ context.Context, in JobInput) (groupJob, error) {
	j.mu.Lock()
	j.calls[in.ID]++
	n := j.calls[in.ID]
	j.mu.Unlock()
	if sp := j.specs[in.ID]; sp.ready > 0 && n >= sp.ready {
		return groupJob{ID: in.ID, State: sp.final}, nil
	}
	return groupJob{ID: in.ID, State: "running"}, nil
}

func (j *jobs) count(id string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.calls[id]
}

func (j *jobs) waiter(t *testing.T, delay time.Duration) *waiter.Waiter[JobInput, groupJob] {
	w, err := waiter.New(jobDone, j.op, waiter.WithDelays(delay, delay), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	return w
}
