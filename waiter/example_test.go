package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"

	"github.com/waitable/waitable/waiter"
)

// Load the waiters of a Smithy model.
func ExampleLoadSmithy() {
	model := `{"smithy": "2.0", "shapes": {
	  "example#Things": {"type": "service", "operations": [{"target": "example#GetThing"}]},
	  "example#GetThing": {"type": "operation", "output": {"target": "example#GetThingOutput"},
	    "traits": {"smithy.waiters#waitable": {"ThingExists": {
	      "acceptors": [
	        {"state": "failure", "matcher": {"output": {"path": "status", "comparator": "stringEquals", "expected": "failed"}}},
	        {"state": "success", "matcher": {"output": {"path": "status", "comparator": "stringEquals", "expected": "success"}}}
	      ],
	      "minDelay": 5}}}}}}`
	c, err := waiter.LoadSmithy(strings.NewReader(model))
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := c.Get("ThingExists")
	fmt.Println(c.Names(), d.Operation.ID, d.Operation.Service)
	fmt.Println(d.Schedule().MinDelay, d.Schedule().MaxDelay)
	for _, a := range d.Acceptors {
		fmt.Println(a.State, a.Matcher)
	}
	// Output:
	// [ThingExists] example#GetThing example#Things
	// 5s 2m0s
	// failure output: status stringEquals "failed"
	// success output: status stringEquals "success"
}

// Validation reports every problem at once, each naming the waiter, the
// acceptor and the rule.
func ExampleParseWaitable_errors() {
	_, err := waiter.ParseWaitable([]byte(`{"thingExists": {"acceptors": [
	  {"state": "retry", "matcher": {"output": {"path": "status", "comparator": "equals", "expected": "x"}}}
	], "minDelay": 30, "maxDelay": 10}}`))
	fmt.Println(err)
	// Output:
	// waiter thingExists: name: "thingExists" is not UpperCamelCase letters and digits (^[A-Z][A-Za-z0-9]*$)
	// waiter thingExists: acceptors: none has state success: at least one is required (in the definition, or given to New with WithMatch or WithAcceptors)
	// waiter thingExists: maxDelay: 10s is less than minDelay 30s
	// waiter thingExists: acceptor 0: comparator: "equals" is not stringEquals, booleanEquals, allStringEquals or anyStringEquals
}

// Botocore's waiters-2.json maps onto the same definitions: a fixed delay
// and a poll limit (MaxPolls, botocore's maxAttempts).
func ExampleLoadBotocore() {
	c, err := waiter.LoadBotocore(strings.NewReader(`{"version": 2, "waiters": {"BucketExists": {
	  "delay": 5, "maxAttempts": 20, "operation": "HeadBucket",
	  "acceptors": [
	    {"expected": 200, "matcher": "status", "state": "success"},
	    {"expected": 404, "matcher": "status", "state": "retry"}
	  ]}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := c.Get("BucketExists")
	fmt.Println(d.Operation.ID, d.MinDelay, d.MaxDelay, d.MaxPolls)
	for _, a := range d.Acceptors {
		fmt.Println(a.State, a.Matcher)
	}
	// Output:
	// HeadBucket 5s 5s 20
	// success status: 200
	// retry status: 404
}

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
	for a := range run.Attempts() {
		fmt.Println(a.Number, a.Output.State, a.State)
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
