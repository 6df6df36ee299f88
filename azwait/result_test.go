package azwait_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestAFailedOperationReturnsItsFailedStatus: a wait that ends on the
// operation's failure returns the poll that saw it, Failed and Done, as
// Wait's output and as the run's last attempt's; not the poll before it.
func TestAFailedOperationReturnsItsFailedStatus(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "AllocationFailed")
		tok := vm.begin(t, "vm1")
		w := vm.waiter(t, "vm1")
		out, err := w.Wait(t.Context(), tok, time.Hour)
		var re *azcore.ResponseError
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &re) || re.ErrorCode != "AllocationFailed" {
			t.Fatalf("Wait = %v, want ErrFailure holding the ResponseError AllocationFailed", err)
		}
		var oe *azcore.ResponseError
		if out == nil || out.Status != "Failed" || !out.Done || !errors.As(out.Err, &oe) || oe.ErrorCode != "AllocationFailed" {
			t.Fatalf("Wait's output = %+v, want the Failed status, Done, with Err the ResponseError AllocationFailed", out)
		}
		vm = newVMWorld(t, 2, "AllocationFailed")
		_, attempts, last, _ := statuses(t, vm.waiter(t, "vm1"), vm.begin(t, "vm1"), time.Hour)
		if a := attempts[len(attempts)-1]; last != a.Output || a.Err != nil {
			t.Fatalf("Result = %+v, last attempt's output %+v (error %v): want the same Failed status, judged with no call error", last, a.Output, a.Err)
		}
	})
}

// TestRetryAfterDateOnTheServicesClock: an answer's Retry-After that is
// an HTTP date 40s after the answer's Date makes the next poll come 40s
// later, whether the service's clock agrees with the bubble's or is an
// hour ahead of it: the date is read on the clock that wrote it.
func TestRetryAfterDateOnTheServicesClock(t *testing.T) {
	for _, skew := range []time.Duration{0, time.Hour} {
		for _, status := range []int{http.StatusAccepted, http.StatusTooManyRequests} {
			t.Run(fmt.Sprintf("%d, service clock ahead by %v", status, skew), func(t *testing.T) {
				clocktest.Run(t, func(t *testing.T) {
					vm := newVMWorld(t, 2, "")
					tok := vm.begin(t, "vm1")
					service := time.Now().Add(skew)
					h := http.Header{"Date": {service.Format(http.TimeFormat)}, "Retry-After": {service.Add(40 * time.Second).Format(http.TimeFormat)}}
					f := throttle("")
					f.header = h
					if status == http.StatusAccepted {
						f = fault{status: status, header: h}
						h.Set("Fake-Poller-Status", "InProgress")
					}
					vm.faults.serve(f)
					if _, err := vm.waiter(t, "vm1").Wait(t.Context(), tok, 10*time.Minute); err != nil {
						t.Fatalf("Wait = %v, want success", err)
					}
					if polls := vm.faults.pollTimes(); len(polls) < 2 || polls[1].Sub(polls[0]) != 40*time.Second {
						t.Fatalf("polls at %v: want the second 40s after the first", polls)
					}
				})
			})
		}
	}
}
