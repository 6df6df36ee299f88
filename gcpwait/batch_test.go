package gcpwait_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/googleapis/gax-go/v2"
	"golang.org/x/time/rate"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/waitable/waitable/gcpwait"
	"github.com/waitable/waitable/waiter"
)

// TestBatchOfTwoHundredUnderTenRequestsASecond: 200 operations in one
// Batch, under a limit of 10 requests a second, all finish, with one
// GetOperation a poll and never more than 10 in a second.
func TestBatchOfTwoHundredUnderTenRequestsASecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, perSecond = 200, 10
		s := &ops{}
		for i := range n {
			s.add(fmt.Sprint("operations/", i), &job{answers: []answer{{progress: 10}, {progress: 50}, {done: true}}})
		}
		b, err := gcpwait.NewBatch(client{serve(t, s)}.JobOperation, 0, waiter.WithPollRateLimit(rate.NewLimiter(perSecond, 1)))
		if err != nil {
			t.Fatal(err)
		}
		runs := make([]*waiter.Run[gcpwait.Status[*wrapperspb.StringValue, *wrapperspb.Int32Value]], n)
		for i := range runs {
			runs[i] = b.Add(t.Context(), fmt.Sprint("operations/", i), time.Hour)
		}
		polls := 0
		for i, r := range runs {
			for range r.Events() {
				polls++
			}
			st, err := r.Result()
			if want := fmt.Sprint("result of operations/", i); err != nil || !st.Done || st.Response.GetValue() != want {
				t.Fatalf("run %d = %+v, %v, want done with %q", i, st, err, want)
			}
		}
		s.mu.Lock()
		times := s.times
		s.mu.Unlock()
		if len(times) > polls {
			t.Errorf("%d GetOperation calls for %d polls, want no more requests than polls", len(times), polls)
		}
		for i := perSecond; i < len(times); i++ {
			if d := times[i].Sub(times[i-perSecond]); d < time.Second-time.Microsecond { // x/time/rate rounds
				t.Fatalf("calls %d and %d came %v apart: over the limit of %d a second", i-perSecond, i, d, perSecond)
			}
		}
		t.Logf("%d operations: %d polls, %d requests, in %v", n, polls, len(times), times[len(times)-1].Sub(times[0]))
	})
}

// TestNewBatchRejectsBadArguments: a nil resume function and a negative
// number of calls are errors, not panics.
func TestNewBatchRejectsBadArguments(t *testing.T) {
	if _, err := gcpwait.NewBatch[*JobOperation](nil, 0); err == nil {
		t.Error("NewBatch(nil) accepted")
	}
	if _, err := gcpwait.NewBatch(client{}.JobOperation, -1); err == nil {
		t.Error("NewBatch(resume, -1) accepted")
	}
}

// TestProgressPercentIsTheProgress: a metadata's progress percent, and a
// compute operation's progress, are the waiter's progress (the fraction
// done that refines each attempt's estimate).
func TestProgressPercentIsTheProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/p", &job{answers: []answer{{progress: 40}}})
		w, err := gcpwait.New(client{serve(t, s)}.ProgressJobOperation)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := w.Call(t.Context(), "operations/p", 0, nil)
		if a.Err != nil || a.Judgment.Progress != 0.4 {
			t.Errorf("Call = %+v, progress %v; want progress 0.4", a.Err, a.Judgment.Progress)
		}

		get := func(_ context.Context, name string, _ ...gax.CallOption) (*computeOp, error) {
			return &computeOp{name: name, status: 1, progress: 30}, nil
		}
		cw, err := gcpwait.NewCompute(get)
		if err != nil {
			t.Fatal(err)
		}
		ca, _ := cw.Call(t.Context(), "operation-1", 0, nil)
		if ca.Err != nil || ca.Judgment.Progress != 0.3 {
			t.Errorf("compute Call = %v, progress %v; want progress 0.3", ca.Err, ca.Judgment.Progress)
		}
	})
}

// TestBatchAttemptsCarryTheStatusOfAFailedPoll: in a Batch as in a
// waiter of New, a poll that errs carries its Status: the operation's
// Name, though GetOperation answered Unavailable.
func TestBatchAttemptsCarryTheStatusOfAFailedPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &ops{}
		s.add("operations/u", &job{answers: []answer{{code: codes.Unavailable}, {done: true}}})
		b, err := gcpwait.NewBatch(client{serve(t, s)}.JobOperation, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Add(t.Context(), "operations/u", time.Hour)
		first := <-r.Events()
		if first.Err == nil || first.Output.Name != "operations/u" {
			t.Fatalf("first attempt: Output %+v, error %v; want the Unavailable poll's Status, named operations/u", first.Output, first.Err)
		}
		for range r.Events() {
		}
		if st, err := r.Result(); err != nil || !st.Done {
			t.Fatalf("Result = %+v, %v; want done", st, err)
		}
	})
}
