package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"

	"github.com/waitable/waitable/waiter"
)

// jobDone is a waiter definition written in Go, for the examples.
var jobDone = waiter.Definition{
	Name: "JobDone",
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "DONE")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "FAILED")},
	},
}

// Job is the output of the examples' GetJob operation.
type Job struct{ State string }

// A waiter from a definition written in Go, polling an operation until the
// resource is ready, with each attempt read as it happens. (The 1ms delays
// only keep the example fast.)
func ExampleWaiter_Start() {
	states := []string{"QUEUED", "RUNNING", "DONE"}
	calls := 0
	getJob := func(ctx context.Context, id string) (Job, error) {
		calls++
		return Job{State: states[min(calls, len(states))-1]}, nil
	}
	w, err := waiter.New(jobDone, getJob, waiter.WithDelays(time.Millisecond, time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	run := w.Start(context.Background(), "job-42", time.Minute)
	for a := range run.Events() {
		fmt.Println(a.Checkpoint.Attempts, a.Output.State, a.Decision)
	}
	job, err := run.Result()
	fmt.Println(job.State, err)
	// Output:
	// 1 QUEUED retry
	// 2 RUNNING retry
	// 3 DONE success
	// DONE <nil>
}

// A failed wait returns the last output and an *Error that says why.
func ExampleError() {
	clk := clocktest.NewMock() // a clock that stands still, for a stable Elapsed
	w, _ := waiter.New(jobDone, func(ctx context.Context, id string) (Job, error) { return Job{State: "FAILED"}, nil }, waiter.WithClock(clk))
	job, err := w.Wait(context.Background(), "job-42", time.Minute)
	var we *waiter.Error
	fmt.Println(job.State, errors.Is(err, waiter.ErrFailure), errors.As(err, &we) && we.Acceptor == 1)
	fmt.Println(err)
	// Output:
	// FAILED true true
	// waiter JobDone: failure after 1 poll in 0s: acceptor 1 matched (output: State stringEquals "FAILED")
}

// Many waits whose results alone are read: with WithEventBuffer(0) a Run
// keeps none of its attempts for Events, however long it polls, and
// Missed counts them. (The 1ms delays only keep the example fast.)
func ExampleWithEventBuffer() {
	getJob := func(ctx context.Context, id string) (Job, error) {
		return Job{State: map[bool]string{true: "DONE", false: "RUNNING"}[id == "job-1"]}, nil
	}
	w, err := waiter.New(jobDone, getJob, waiter.WithDelays(time.Millisecond, time.Millisecond),
		waiter.WithMaxPolls(5), waiter.WithEventBuffer(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	var runs []*waiter.Run[Job]
	for _, id := range []string{"job-1", "job-2"} {
		runs = append(runs, w.Start(context.Background(), id, time.Minute))
	}
	for _, run := range runs {
		job, err := run.Result()
		fmt.Println(job.State, errors.Is(err, waiter.ErrMaxPolls), run.Missed())
	}
	// Output:
	// DONE false 1
	// RUNNING true 5
}
