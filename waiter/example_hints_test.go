package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/waitable/waitable/waiter"
)

// Operation is a long-running operation's status, as a service returns it: the
// service also says when to look again, as an HTTP 202's Retry-After or
// an operation's poll interval does.
type Operation struct {
	State        string
	PollInterval time.Duration
}

// The service's own hint sets the next poll: never sooner, within the
// wait's budget.
func ExampleWithPollHint() {
	polls := 0
	get := func(ctx context.Context, id string) (Operation, error) {
		if polls++; polls < 3 {
			return Operation{State: "RUNNING", PollInterval: time.Duration(polls) * 300 * time.Microsecond}, nil
		}
		return Operation{State: "DONE"}, nil
	}
	done := func(id string, j Operation, err error) (bool, error) { return j.State == "DONE", err }
	w, _ := waiter.NewFunc("OperationDone", get, done,
		waiter.WithDelays(100*time.Microsecond, 100*time.Microsecond),
		waiter.WithPollHint(func(j Operation) time.Duration { return j.PollInterval }))
	r := w.Start(context.Background(), "job-1", time.Minute)
	for a := range r.Events() {
		fmt.Println(a.Checkpoint.Attempts, a.Output.State, "hint", a.Hint, "next poll in", a.NextDelay)
	}
	// Output:
	// 1 RUNNING hint 300µs next poll in 300µs
	// 2 RUNNING hint 600µs next poll in 600µs
	// 3 DONE hint 0s next poll in 0s
}

// A delay chosen from the attempt and what it returned: here, slower
// polls while the job is queued than while it runs.
func ExampleWithDelayFunc() {
	states := []string{"QUEUED", "QUEUED", "RUNNING", "DONE"}
	polls := 0
	get := func(ctx context.Context, id string) (Operation, error) {
		polls++
		return Operation{State: states[polls-1]}, nil
	}
	done := func(id string, j Operation, err error) (bool, error) { return j.State == "DONE", err }
	delay := func(attempt int, j Operation, err error) time.Duration {
		if j.State == "QUEUED" {
			return 400 * time.Microsecond
		}
		return 100 * time.Microsecond
	}
	w, _ := waiter.NewFunc("OperationDone", get, done, waiter.WithDelays(50*time.Microsecond, time.Millisecond), waiter.WithDelayFunc(delay))
	r := w.Start(context.Background(), "job-1", time.Minute)
	for a := range r.Events() {
		fmt.Println(a.Checkpoint.Attempts, a.Output.State, "next poll in", a.NextDelay)
	}
	// Output:
	// 1 QUEUED next poll in 400µs
	// 2 QUEUED next poll in 400µs
	// 3 RUNNING next poll in 100µs
	// 4 DONE next poll in 0s
}

// Success that sticks: an eventually consistent API (IAM, Route 53, DNS)
// may answer "ready" from one replica and "not found" from the next. The
// wait succeeds only after three "ready" answers in a row.
func ExampleWithStability() {
	answers := []string{"READY", "MISSING", "READY", "READY", "READY"}
	polls := 0
	get := func(ctx context.Context, name string) (string, error) {
		polls++
		return answers[polls-1], nil
	}
	ready := func(name, state string, err error) (bool, error) { return state == "READY", err }
	w, _ := waiter.NewFunc("RoleVisible", get, ready, waiter.WithDelays(100*time.Microsecond, 100*time.Microsecond), waiter.WithStability(3, 0))
	r := w.Start(context.Background(), "deploy-role", time.Minute)
	for a := range r.Events() {
		fmt.Println(a.Checkpoint.Attempts, a.Output, a.Decision, "streak", a.Checkpoint.Streak)
	}
	// Output:
	// 1 READY retry streak 1
	// 2 MISSING retry streak 0
	// 3 READY retry streak 1
	// 4 READY retry streak 2
	// 5 READY success streak 3
}

// A create wait that gives up when the resource never appears, and that
// notices when it was deleted and created again under the same name.
func ExampleWithIdentity() {
	type Stack struct{ StackId, Status string }
	answers := []Stack{{"arn:stack/web/1", "CREATE_IN_PROGRESS"}, {"arn:stack/web/2", "CREATE_IN_PROGRESS"}}
	polls := 0
	get := func(ctx context.Context, name string) (Stack, error) {
		polls++
		return answers[polls-1], nil
	}
	created := func(name string, s Stack, err error) (bool, error) { return s.Status == "CREATE_COMPLETE", err }
	w, err := waiter.NewFunc("StackCreated", get, created, waiter.WithDelays(100*time.Microsecond, 100*time.Microsecond),
		waiter.WithIdentity("StackId"), waiter.WithNotFoundLimit(5))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = w.Wait(context.Background(), "web", time.Minute)
	var we *waiter.Error
	if errors.As(err, &we) {
		fmt.Println(we.Failure, "-", we.Message)
	}
	// Output:
	// the resource was deleted and recreated - its identity arn:stack/web/1 became arn:stack/web/2
}

// Wake a wait when an event says the resource changed (a webhook, an
// EventBridge or SQS message, a watch): it polls at once, and the
// schedule stays the fallback for events that never come.
func ExampleRun_Poke() {
	ready := make(chan struct{})
	get := func(ctx context.Context, id string) (string, error) {
		select {
		case <-ready:
			return "AVAILABLE", nil
		default:
			return "PENDING", nil
		}
	}
	available := func(id, state string, err error) (bool, error) { return state == "AVAILABLE", err }
	w, _ := waiter.NewFunc("VolumeAvailable", get, available, waiter.WithDelays(time.Hour, time.Hour))
	r := w.Start(context.Background(), "vol-1", 2*time.Hour)
	for a := range r.Events() {
		fmt.Println(a.Checkpoint.Attempts, a.Output)
		if a.Output == "PENDING" {
			close(ready) // the event arrives...
			r.Poke()     // ...and the wait polls now, not in an hour
		}
	}
	// Output:
	// 1 PENDING
	// 2 AVAILABLE
}

// notFoundYet is a service's "not found", with its error code.
type notFoundYet struct{}

func (notFoundYet) Error() string     { return "table not found" }
func (notFoundYet) ErrorCode() string { return "ResourceNotFoundException" }

// What a wait saw, counted by kind: here, two "not found" answers before
// the table was ACTIVE.
func ExampleRun_Checkpoint() {
	polls := 0
	get := func(ctx context.Context, name string) (string, error) {
		if polls++; polls < 3 {
			return "", notFoundYet{}
		}
		return "ACTIVE", nil
	}
	active := func(name, state string, err error) (bool, error) { return state == "ACTIVE", nil }
	w, _ := waiter.NewFunc("TableActive", get, active, waiter.WithDelays(100*time.Microsecond, 100*time.Microsecond))
	r := w.Start(context.Background(), "orders", time.Minute)
	r.Result()
	for _, c := range r.Checkpoint().Seen {
		fmt.Println(c)
	}
	// Output:
	// 2 × ResourceNotFoundException (acceptor 0) retry
	// 1 × acceptor 0 success
}

// Cancel the remote operation when the wait gives up on it.
func ExampleWithOnGiveUp() {
	describe := func(ctx context.Context, id string) (string, error) { return "RUNNING", nil }
	succeeded := func(id, state string, err error) (bool, error) { return state == "SUCCEEDED", err }
	cancelJob := func(ctx context.Context, id string, err error) {
		// ctx is live though the wait's ended: call the service's CancelJob here.
		fmt.Println("cancelling", id, "after:", errors.Is(err, waiter.ErrTimeout), ctx.Err())
	}
	w, _ := waiter.NewFunc("JobSucceeded", describe, succeeded,
		waiter.WithDelays(100*time.Microsecond, 100*time.Microsecond), waiter.WithOnGiveUp(cancelJob, 5*time.Second))
	_, err := w.Wait(context.Background(), "job-1", 2*time.Millisecond)
	fmt.Println(errors.Is(err, waiter.ErrTimeout))
	// Output:
	// cancelling job-1 after: true <nil>
	// true
}
