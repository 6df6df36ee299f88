package azwait_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/azwait"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestBatchOfTwoHundredUnderTenRequestsASecond: 200 creations in one
// Batch, under a limit of 10 requests a second, all finish, with one
// request a poll and never more than 10 polls in a second.
func TestBatchOfTwoHundredUnderTenRequestsASecond(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		const n, perSecond = 200, 10
		vm := newVMWorld(t, 4, "")
		b, err := azwait.NewBatch(vm.resumeAny(), 0, waiter.WithPollRateLimit(rate.NewLimiter(perSecond, 1)))
		if err != nil {
			t.Fatal(err)
		}
		runs := make([]*waiter.Run[*azwait.Status[createResponse]], n)
		for i := range runs {
			runs[i] = b.Add(t.Context(), vm.begin(t, fmt.Sprint("vm", i)), time.Hour)
		}
		polls := 0
		for i, r := range runs {
			for range r.Events() {
				polls++
			}
			st, err := r.Result()
			if err != nil || !st.Done || st.Status != "Succeeded" || *st.Result.Name != fmt.Sprint("vm", i) {
				t.Fatalf("run %d = %+v, %v, want vm%d Succeeded", i, st, err, i)
			}
		}
		requests, _ := vm.faults.counts()
		requests -= n // the Begins
		if requests > polls {
			t.Errorf("%d requests for %d polls, want no more requests than polls", requests, polls)
		}
		times := vm.faults.pollTimes()
		for i := perSecond; i < len(times); i++ {
			if d := times[i].Sub(times[i-perSecond]); d < time.Second-time.Microsecond { // x/time/rate rounds
				t.Fatalf("polls %d and %d came %v apart: over the limit of %d a second", i-perSecond, i, d, perSecond)
			}
		}
		t.Logf("%d creations: %d polls, %d requests, in %v", n, polls, requests, times[len(times)-1].Sub(times[0]))
	})
}

// TestNewBatchRejectsBadArguments: a nil resume function and a negative
// number of calls are errors, not panics.
func TestNewBatchRejectsBadArguments(t *testing.T) {
	if _, err := azwait.NewBatch[createResponse](nil, 0); err == nil {
		t.Error("NewBatch(nil) accepted")
	}
	vm := newVMWorld(t, 1, "")
	if _, err := azwait.NewBatch(vm.resumeAny(), -1); err == nil {
		t.Error("NewBatch(resume, -1) accepted")
	}
}

// TestPercentCompleteIsTheProgress: an operation's percentComplete is its
// Status's PercentComplete, and the waiter's progress (the fraction done
// that refines each attempt's estimate).
func TestPercentCompleteIsTheProgress(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		tok := vm.begin(t, "vm1")
		vm.faults.serve(fault{status: http.StatusOK, header: http.Header{"Fake-Poller-Status": {"InProgress"}},
			body: `{"status":"InProgress","percentComplete":40}`})
		w := vm.waiter(t, "vm1")
		a, _ := w.Call(t.Context(), tok, 0, nil)
		if a.Err != nil || a.Output.PercentComplete != 40 || a.Judgment.Progress != 0.4 {
			t.Fatalf("Call = %+v (error %v), progress %v; want PercentComplete 40, progress 0.4", a.Output, a.Err, a.Judgment.Progress)
		}
	})
}

// TestBatchAttemptsCarryTheStatusOfAThrottledPoll: in a Batch as in a
// waiter of New, an attempt's Output is never nil, whatever its error: a
// poll answered 429 carries its Status (HTTP 429, its Retry-After).
func TestBatchAttemptsCarryTheStatusOfAThrottledPoll(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		tok := vm.begin(t, "vm1")
		vm.faults.serve(throttle("17"))
		b, err := azwait.NewBatch(vm.resumeAny(), 0)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Add(t.Context(), tok, time.Hour)
		first := <-r.Events()
		if first.Err == nil || first.Output == nil || first.Output.HTTPStatus != http.StatusTooManyRequests || first.Output.After != 17*time.Second {
			t.Fatalf("first attempt: Output %+v, error %v; want the 429's Status (HTTP 429, After 17s)", first.Output, first.Err)
		}
		for range r.Events() {
		}
		if st, err := r.Result(); err != nil || !st.Done {
			t.Fatalf("Result = %+v, %v; want done", st, err)
		}
	})
}
