package gcpwait_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/waitable/waitable/gcpwait"
	"github.com/waitable/waitable/waiter"
)

// A generated client's XxxOperation method rebuilds an operation from
// its name, the wait's input: each attempt's output carries the
// operation's metadata (here, a percentage) and, at the end, its
// response. (The service here is in process, and the delays are a
// millisecond; the defaults are 1s to 60s, as longrunning's.)
func ExampleNew() {
	s := &ops{}
	s.add("operations/build-42", &job{answers: []answer{{progress: 25}, {progress: 80}, {done: true}}})
	lro, stop, err := start(context.Background(), s)
	if err != nil {
		panic(err)
	}
	defer stop()
	c := client{lro} // stands for a generated client

	w, err := gcpwait.New(c.JobOperation, waiter.WithDelays(time.Millisecond, time.Millisecond))
	if err != nil {
		panic(err)
	}
	run := w.Start(context.Background(), "operations/build-42", time.Minute)
	for a := range run.Events() {
		fmt.Printf("poll %d: done %t, %d%%\n", a.Checkpoint.Attempts, a.Output.Done, a.Output.Metadata.GetValue())
	}
	st, err := run.Result()
	fmt.Println(st.Response.GetValue(), err)
	// Output:
	// poll 1: done false, 25%
	// poll 2: done false, 80%
	// poll 3: done true, 100%
	// result of operations/build-42 <nil>
}

// An operation that is still running when the wait times out is
// cancelled (CancelOperation); the wait's error says it timed out.
func ExampleWithCancelOnGiveUp() {
	s := &ops{}
	s.add("operations/slow", &job{answers: []answer{{progress: 1}}})
	lro, stop, err := start(context.Background(), s)
	if err != nil {
		panic(err)
	}
	defer stop()

	w, err := gcpwait.New(client{lro}.JobOperation,
		waiter.WithDelays(time.Millisecond, time.Millisecond),
		gcpwait.WithCancelOnGiveUp(lro, time.Second)) // lro: longrunning's OperationsClient
	if err != nil {
		panic(err)
	}
	_, err = w.Wait(context.Background(), "operations/slow", 5*time.Millisecond)
	fmt.Println(errors.Is(err, waiter.ErrTimeout), s.cancelled("operations/slow"))
	// Output: true true
}

// Wait for many operations in one Batch: one scheduler, and one rate
// limit that each poll's GetOperation takes a token of.
func ExampleNewBatch() {
	s := &ops{}
	for _, name := range []string{"operations/a", "operations/b", "operations/c"} {
		s.add(name, &job{answers: []answer{{progress: 50}, {done: true}}})
	}
	lro, stop, err := start(context.Background(), s)
	if err != nil {
		panic(err)
	}
	defer stop()

	b, err := gcpwait.NewBatch(client{lro}.JobOperation, 0, waiter.WithPollRateLimit(rate.NewLimiter(100, 1)),
		waiter.WithDelays(time.Millisecond, time.Millisecond)) // 1s to 60s by default: shortened for the example
	if err != nil {
		panic(err)
	}
	var runs []*waiter.Run[gcpwait.Status[*wrapperspb.StringValue, *wrapperspb.Int32Value]]
	for _, name := range []string{"operations/a", "operations/b", "operations/c"} {
		runs = append(runs, b.Add(context.Background(), name, time.Minute))
	}
	for _, r := range runs {
		st, err := r.Result()
		fmt.Println(st.Name, st.Done, err)
	}
	// Output:
	// operations/a true <nil>
	// operations/b true <nil>
	// operations/c true <nil>
}
