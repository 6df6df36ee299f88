package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// jobs is a job service: job n is done on its n-th look, and "bad" jobs
// fail. (The microsecond delays below only keep the examples fast.)
func jobs() func(ctx context.Context, id string) (Job, error) {
	var mu sync.Mutex
	looks := map[string]int{}
	return func(ctx context.Context, id string) (Job, error) {
		mu.Lock()
		defer mu.Unlock()
		looks[id]++
		switch {
		case strings.HasPrefix(id, "bad"):
			return Job{State: "FAILED"}, nil
		case looks[id] >= len(id):
			return Job{State: "DONE"}, nil
		}
		return Job{State: "RUNNING"}, nil
	}
}

// Wait for many jobs at once, at most two at a time: every outcome, in the
// order of the inputs.
func ExampleWaitAll() {
	w, _ := waiter.New(jobDone, jobs(), waiter.WithDelays(time.Microsecond, time.Microsecond))
	outs, err := waiter.WaitAll(context.Background(), w, []string{"a", "bb", "bad-1", "ccc"}, time.Minute, waiter.GroupOptions{Concurrency: 2})
	for _, o := range outs {
		fmt.Println(o.Output.State, o.Err == nil)
	}
	var we *waiter.Error
	fmt.Println(errors.Is(err, waiter.ErrFailure), errors.As(err, &we), we.Input, we.Matcher)
	// Output:
	// DONE true
	// DONE true
	// FAILED false
	// DONE true
	// true true bad-1 output: State stringEquals "FAILED"
}

// A Group waits for resources of any waiters, each named, each a Run whose
// attempts can be read; the group's error names the ones that failed.
func ExampleGroup() {
	w, _ := waiter.New(jobDone, jobs(), waiter.WithDelays(time.Microsecond, time.Microsecond))
	g := waiter.NewGroup(context.Background(), waiter.GroupOptions{})
	build := waiter.Go(g, "nightly build", w, "build", time.Minute)
	waiter.Go(g, "smoke test", w, "bad-smoke", time.Minute)
	for a := range build.Events() {
		fmt.Println("build attempt", a.Checkpoint.Attempts, a.Output.State)
	}
	err := g.Wait()
	var ge *waiter.GroupError
	var we *waiter.Error
	fmt.Println(errors.As(err, &ge), len(ge.Failed), ge.Total)
	fmt.Println(errors.As(ge.Failed[0], &we), we.Input, we.Reason)
	// Output:
	// build attempt 1 RUNNING
	// build attempt 2 RUNNING
	// build attempt 3 RUNNING
	// build attempt 4 RUNNING
	// build attempt 5 DONE
	// true 1 2
	// true smoke test failure
}

// An acceptor written in Go, tried before the definition's: here a job
// whose output says it was cancelled fails at once.
func ExampleWithMatch() {
	cancelled := waiter.WithMatch(classify.Failure, "job cancelled", func(id string, j Job, err error) bool {
		return err == nil && j.State == "CANCELLED"
	})
	w, _ := waiter.New(jobDone, func(ctx context.Context, id string) (Job, error) { return Job{State: "CANCELLED"}, nil }, cancelled)
	_, err := w.Wait(context.Background(), "job-7", time.Minute)
	var we *waiter.Error
	fmt.Println(errors.As(err, &we), we.Acceptor, we.Matcher)
	// Output: true 0 job cancelled
}

// A waiter from Go alone: an operation and a condition, no definition.
func ExampleNewFunc() {
	done := func(id string, j Job, err error) (bool, error) {
		if err != nil {
			return false, err
		}
		if j.State == "FAILED" {
			return false, errors.New("the job failed")
		}
		return j.State == "DONE", nil
	}
	w, _ := waiter.NewFunc("JobDone", jobs(), done, waiter.WithDelays(time.Microsecond, time.Microsecond))
	j, err := w.Wait(context.Background(), "abc", time.Minute)
	fmt.Println(j.State, err)
	_, err = w.Wait(context.Background(), "bad-2", time.Minute)
	var we *waiter.Error
	fmt.Println(errors.As(err, &we), we.Failure, we.Err)
	// Output:
	// DONE <nil>
	// true a failure acceptor matched the job failed
}

// Many jobs polled together: the job service answers for many IDs in one
// call, and each job keeps a wait of its own.
func ExampleNewBatch() {
	looks := 0
	getJobs := func(ctx context.Context, ids []string) (map[string]Job, error) {
		looks++
		out := map[string]Job{}
		for _, id := range ids {
			out[id] = Job{State: map[bool]string{true: "DONE", false: "RUNNING"}[looks >= len(id)]}
		}
		return out, nil
	}
	b, _ := waiter.NewBatch(jobDone, getJobs, waiter.BatchOptions[string, Job]{Linger: -1}, waiter.WithDelays(time.Microsecond, time.Microsecond))
	var runs []*waiter.Run[Job]
	for _, id := range []string{"a", "bb", "ccc"} {
		runs = append(runs, b.Add(context.Background(), id, time.Minute))
	}
	for _, r := range runs {
		j, err := r.Result()
		fmt.Println(j.State, err, r.Checkpoint().Attempts <= 3)
	}
	// Output:
	// DONE <nil> true
	// DONE <nil> true
	// DONE <nil> true
}
