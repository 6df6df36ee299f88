package azwait_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/waitable/waitable/azwait"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// statuses runs a wait of w for token in the background and returns its
// attempts' statuses and its result.
func statuses(t *testing.T, w *waiter.Waiter[string, *azwait.Status[createResponse]], token string, maxWait time.Duration) ([]string, []waiter.Attempt[*azwait.Status[createResponse]], *azwait.Status[createResponse], error) {
	t.Helper()
	run := w.Start(t.Context(), token, maxWait)
	var got []string
	var attempts []waiter.Attempt[*azwait.Status[createResponse]]
	for a := range run.Events() {
		attempts = append(attempts, a)
		s := "<nil>"
		if a.Output != nil {
			s = a.Output.Status
		}
		got = append(got, s)
	}
	out, err := run.Result()
	return got, attempts, out, err
}

func TestWaitSucceedsWithTheResult(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 3, "")
		tok := vm.begin(t, "vm1")
		w := vm.waiter(t, "vm1")
		got, _, out, err := statuses(t, w, tok, time.Hour)
		if err != nil {
			t.Fatalf("Wait = %v, want success", err)
		}
		want := []string{"InProgress", "InProgress", "Succeeded"}
		if !slices.Equal(got, want) {
			t.Fatalf("statuses = %v, want %v", got, want)
		}
		if !out.Done || out.Result.Name == nil || *out.Result.Name != "vm1" {
			t.Fatalf("output = %+v, want Done with the VM vm1", out)
		}
		if req, polls := vm.faults.counts(); req != 4 || polls != 3 {
			t.Fatalf("requests, polls = %d, %d, want 4 (the Begin and 3 polls), 3", req, polls)
		}
	})
}

func TestFailedEndsAtOnceWithTheServiceError(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "AllocationFailed")
		tok := vm.begin(t, "vm1")
		w := vm.waiter(t, "vm1")
		got, _, _, err := statuses(t, w, tok, time.Hour)
		var re *azcore.ResponseError
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &re) || re.ErrorCode != "AllocationFailed" {
			t.Fatalf("Wait = %v, want ErrFailure holding the ResponseError AllocationFailed", err)
		}
		if want := []string{"InProgress", "Failed"}; !slices.Equal(got, want) {
			t.Fatalf("statuses = %v, want %v", got, want)
		}
		if _, polls := vm.faults.counts(); polls != 2 {
			t.Fatalf("polls = %d, want 2: no poll after the failure", polls)
		}
	})
}

func TestServerErrorStormIsRetriedWithinTheBudget(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		tok := vm.begin(t, "vm1")
		vm.faults.serve(serverError, serverError, serverError, serverError, serverError, serverError)
		w := vm.waiter(t, "vm1")
		got, attempts, _, err := statuses(t, w, tok, time.Hour)
		if err != nil {
			t.Fatalf("Wait = %v, want success after the storm", err)
		}
		transient := 0
		for _, a := range attempts {
			if a.Transient {
				transient++
			}
		}
		if transient != 6 || got[len(got)-1] != "Succeeded" {
			t.Fatalf("%d transient attempts, statuses %v; want 6, then Succeeded", transient, got)
		}
		// One request per poll: azcore's retries (3 by default) are off.
		if req, polls := vm.faults.counts(); polls != len(attempts) || req != polls+1 {
			t.Fatalf("requests, polls = %d, %d for %d attempts, want one request per attempt", req, polls, len(attempts))
		}
	})
}

func TestServerErrorStormBeyondTheBudgetTimesOut(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		tok := vm.begin(t, "vm1")
		storm := make([]fault, 100)
		for i := range storm {
			storm[i] = serverError
		}
		vm.faults.serve(storm...)
		w := vm.waiter(t, "vm1")
		start := time.Now()
		_, err := w.Wait(t.Context(), tok, 2*time.Minute)
		var re *azcore.ResponseError
		if !errors.Is(err, waiter.ErrTimeout) || !errors.As(err, &re) || re.StatusCode != 500 {
			t.Fatalf("Wait = %v, want ErrTimeout holding the 500", err)
		}
		if el := time.Since(start); el > 2*time.Minute {
			t.Fatalf("the wait took %v, want at most its 2m budget", el)
		}
	})
}

func TestRetryAfterIsNeverUndercut(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		tok := vm.begin(t, "vm1")
		vm.faults.serve(throttle("17"))
		w := vm.waiter(t, "vm1")
		if _, err := w.Wait(t.Context(), tok, time.Hour); err != nil {
			t.Fatalf("Wait = %v, want success after the throttle", err)
		}
		polls := vm.faults.pollTimes()
		if len(polls) < 2 || polls[1].Sub(polls[0]) < 17*time.Second {
			t.Fatalf("polls at %v: the one after the 429 came sooner than its Retry-After of 17s", polls)
		}
	})
}

func TestA200CarryingAnErrorIsNotTheEnd(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		tok := vm.begin(t, "vm1")
		vm.faults.serve(okWithError)
		w := vm.waiter(t, "vm1")
		_, attempts, out, err := statuses(t, w, tok, time.Hour)
		if err != nil || !out.Done || out.Status != "Succeeded" {
			t.Fatalf("Wait = %+v, %v, want Succeeded after the 200 carrying InternalServerError", out, err)
		}
		var re *azcore.ResponseError
		if !attempts[0].Transient || !errors.As(attempts[0].Err, &re) || re.ErrorCode != "InternalServerError" {
			t.Fatalf("first attempt = %+v, want a transient ResponseError InternalServerError", attempts[0])
		}
	})
}

func TestExpiredTokenIsATypedError(t *testing.T) {
	for name, f := range map[string]fault{
		"a 200 with no status": noStatus,
		"an expired code":      {status: 401, body: `{"error":{"code":"ExpiredAuthenticationToken","message":"expired"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				vm := newVMWorld(t, 2, "")
				tok := vm.begin(t, "vm1")
				vm.faults.serve(f)
				w := vm.waiter(t, "vm1")
				_, err := w.Wait(t.Context(), tok, time.Hour)
				var te *azwait.TokenError
				if !errors.Is(err, azwait.ErrTokenExpired) || !errors.As(err, &te) || !te.Expired || !errors.Is(err, waiter.ErrFailure) {
					t.Fatalf("Wait = %v, want a failure with an expired *TokenError", err)
				}
				if _, polls := vm.faults.counts(); polls != 1 {
					t.Fatalf("polls = %d, want 1: an expired token is not polled again", polls)
				}
			})
		})
	}
}

func TestInvalidTokenIsATypedError(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		w := vm.waiter(t, "vm1")
		_, err := w.Wait(t.Context(), "not a token", time.Hour)
		if !errors.Is(err, azwait.ErrTokenInvalid) || errors.Is(err, azwait.ErrTokenExpired) {
			t.Fatalf("Wait = %v, want ErrTokenInvalid", err)
		}
	})
}

func TestResumeFromATokenInANewProcess(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 5, "")
		tok := vm.begin(t, "vm1")
		w := vm.waiter(t, "vm1")
		// The first process polls twice, saves what it has, and stops.
		run := w.Start(t.Context(), tok, time.Hour)
		var saved []byte
		for a := range run.Events() {
			if a.Checkpoint.Attempts == 2 {
				var err error
				if saved, err = json.Marshal(a.Checkpoint); err != nil {
					t.Fatal(err)
				}
				run.Cancel()
			}
		}
		if _, err := run.Result(); !errors.Is(err, context.Canceled) {
			t.Fatalf("first process: %v, want cancelled", err)
		}
		savedToken, _ := json.Marshal(tok)

		// A new process: a new client on the same service, a new waiter.
		next := newWorld(t, vm.faults.next)
		var token string
		if err := json.Unmarshal(savedToken, &token); err != nil {
			t.Fatal(err)
		}
		cp, err := waiter.ParseCheckpoint(saved)
		if err != nil {
			t.Fatal(err)
		}
		w2 := next.waiter(t, "vm1")
		run2 := w2.StartFrom(t.Context(), token, cp)
		var numbers []int
		for a := range run2.Events() {
			numbers = append(numbers, a.Checkpoint.Attempts)
		}
		out, err := run2.Result()
		if err != nil || out.Result.Name == nil || *out.Result.Name != "vm1" {
			t.Fatalf("resumed wait = %+v, %v, want the VM vm1", out, err)
		}
		if len(numbers) == 0 || numbers[0] != 3 {
			t.Fatalf("resumed attempts %v, want them numbered on from 3", numbers)
		}
	})
}

// TestAnswerStatuses: a poll answered 408, 429 or any 5xx (with the
// service's error code or none) is polled again within the budget and the
// wait succeeds; a 400, 401 or 403 ends the wait at once with the
// *azcore.ResponseError, after that one poll.
func TestAnswerStatuses(t *testing.T) {
	for _, tc := range []struct {
		status    int
		code      string
		transient bool
	}{
		{http.StatusRequestTimeout, "RequestTimeout", true},
		{http.StatusRequestTimeout, "", true},
		{http.StatusTooManyRequests, "", true},
		{http.StatusInternalServerError, "", true},
		{http.StatusBadGateway, "", true},
		{http.StatusServiceUnavailable, "ServiceUnavailable", true},
		{http.StatusGatewayTimeout, "GatewayTimeout", true},
		{http.StatusBadRequest, "InvalidParameter", false},
		{http.StatusUnauthorized, "InvalidAuthenticationToken", false},
		{http.StatusForbidden, "AuthorizationFailed", false},
	} {
		t.Run(fmt.Sprintf("%d %s", tc.status, tc.code), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				vm := newVMWorld(t, 2, "")
				tok := vm.begin(t, "vm1")
				body := `{}`
				if tc.code != "" {
					body = `{"error":{"code":"` + tc.code + `","message":"scripted"}}`
				}
				f := fault{status: tc.status, body: body}
				vm.faults.serve(f, f)
				w := vm.waiter(t, "vm1")
				_, err := w.Wait(t.Context(), tok, time.Hour)
				_, polls := vm.faults.counts()
				if tc.transient {
					if err != nil || polls < 3 {
						t.Fatalf("Wait = %v after %d polls, want success after two %d answers", err, polls, tc.status)
					}
					return
				}
				var re *azcore.ResponseError
				if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &re) || re.StatusCode != tc.status {
					t.Fatalf("Wait = %v, want a failure holding the %d *azcore.ResponseError", err, tc.status)
				}
				if polls != 1 {
					t.Errorf("polls = %d, want 1", polls)
				}
			})
		})
	}
}
