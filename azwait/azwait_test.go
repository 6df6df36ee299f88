package azwait_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

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

// TestRetryAfterIsNeverUndercut: a poll comes no sooner than the last
// answer's hint, whatever its form (Retry-After, retry-after-ms,
// x-ms-retry-after-ms), on a pending answer as on a 429 or a 503, even
// past Definition's 30s MaxDelay; a pending answer's hint is on its
// Status.
func TestRetryAfterIsNeverUndercut(t *testing.T) {
	inProgress := func(h http.Header) fault {
		h.Set("Fake-Poller-Status", "InProgress")
		return fault{status: http.StatusAccepted, header: h}
	}
	for _, c := range []struct {
		name string
		f    fault
		gap  time.Duration
	}{
		{"pending Retry-After", inProgress(http.Header{"Retry-After": {"45"}}), 45 * time.Second},
		{"pending retry-after-ms", inProgress(http.Header{"Retry-After-Ms": {"41000"}}), 41 * time.Second},
		{"429 Retry-After", throttle("17"), 17 * time.Second},
		{"429 Retry-After past MaxDelay", throttle("90"), 90 * time.Second},
		{"429 retry-after-ms", fault{status: 429, header: http.Header{"Retry-After-Ms": {"25000"}}, body: `{"error":{"code":"TooManyRequests"}}`}, 25 * time.Second},
		{"503 x-ms-retry-after-ms", fault{status: 503, header: http.Header{"X-Ms-Retry-After-Ms": {"33000"}}, body: `{"error":{"code":"ServiceUnavailable"}}`}, 33 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				vm := newVMWorld(t, 2, "")
				tok := vm.begin(t, "vm1")
				vm.faults.serve(c.f)
				w := vm.waiter(t, "vm1")
				_, attempts, _, err := statuses(t, w, tok, time.Hour)
				if err != nil {
					t.Fatalf("Wait = %v, want success", err)
				}
				polls := vm.faults.pollTimes()
				if len(polls) < 2 || polls[1].Sub(polls[0]) < c.gap {
					t.Fatalf("polls at %v: the second came sooner than the hint %v", polls, c.gap)
				}
				if c.f.status == http.StatusAccepted {
					if out := attempts[0].Output; out.After != c.gap || out.HTTPStatus != 202 || out.Status != "InProgress" {
						t.Fatalf("first attempt's Status = %+v, want InProgress, HTTP 202, After %v", out, c.gap)
					}
				}
			})
		})
	}
}

// TestFirstPollAtOnceThenTwoToThirtySecondsApart: with no Retry-After,
// the first poll comes as the wait starts, the next ones 2s to 30s apart.
func TestFirstPollAtOnceThenTwoToThirtySecondsApart(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 1, "")
		tok := vm.begin(t, "vm1")
		start := time.Now()
		vm.faults.readyAt = start.Add(10 * time.Minute)
		if _, err := vm.waiter(t, "vm1").Wait(t.Context(), tok, time.Hour); err != nil {
			t.Fatal(err)
		}
		polls := vm.faults.pollTimes()
		if polls[0] != start {
			t.Errorf("first poll %v after the start, want at once", polls[0].Sub(start))
		}
		for i := 1; i < len(polls); i++ {
			if d := polls[i].Sub(polls[i-1]); d < 2*time.Second || d > 30*time.Second {
				t.Errorf("polls %d and %d %v apart, want 2s to 30s", i-1, i, d)
			}
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

// TestZeroTokenErrorSaysItsSentinel: a TokenError with no Err reads as
// its sentinel alone, and still matches it.
func TestZeroTokenErrorSaysItsSentinel(t *testing.T) {
	for _, c := range []struct {
		err  *azwait.TokenError
		want error
	}{
		{&azwait.TokenError{}, azwait.ErrTokenInvalid},
		{&azwait.TokenError{Expired: true}, azwait.ErrTokenExpired},
	} {
		if got := c.err.Error(); got != c.want.Error() || !errors.Is(c.err, c.want) || c.err.Unwrap() != nil {
			t.Errorf("%#v: Error() = %q, want %q, matching it, Unwrap nil", c.err, got, c.want.Error())
		}
	}
}

// TestNilResumeIsRejected: New and Op refuse a nil resume function.
func TestNilResumeIsRejected(t *testing.T) {
	if _, err := azwait.New[createResponse](nil); err == nil || !strings.Contains(err.Error(), "resume") {
		t.Errorf("New(nil) = %v, want an error naming the resume function", err)
	}
	if _, err := azwait.Op[createResponse](nil); err == nil {
		t.Errorf("Op(nil) = nil error, want one")
	}
}

// TestAResumeFunctionReturningNoPollerFails: a resume function that
// returns a nil poller and a nil error ends the wait at once with an
// error that names it.
func TestAResumeFunctionReturningNoPollerFails(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[createResponse], error) {
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		_, attempts, _, err := statuses(t, w, "token", time.Hour)
		if !errors.Is(err, waiter.ErrFailure) || !strings.Contains(err.Error(), "resume function returned a nil poller") || len(attempts) != 1 {
			t.Fatalf("Wait = %v after %d attempts, want a failure naming the resume function after 1", err, len(attempts))
		}
	})
}

// TestAPollerAlreadyDoneEndsWithItsResult: a poller that is done when
// resume returns it (runtime.NewPoller on a synchronous 200) ends the
// wait with its result, without a request.
func TestAPollerAlreadyDoneEndsWithItsResult(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var requests atomic.Int32
		pl := runtime.NewPipeline("test", "v0", runtime.PipelineOptions{}, &policy.ClientOptions{Transport: transportFunc(func(req *http.Request) (*http.Response, error) {
			requests.Add(1)
			return nil, errors.New("no request expected")
		})})
		w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[createResponse], error) {
			req, _ := http.NewRequest(http.MethodPut, "https://management.azure.com/vm1", nil)
			resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(`{"name":"vm1"}`)), Request: req}
			return runtime.NewPoller[createResponse](resp, pl, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := w.Wait(t.Context(), "token", time.Hour)
		if err != nil || !out.Done || out.Status != "Succeeded" || out.HTTPStatus != 0 || out.Result.Name == nil || *out.Result.Name != "vm1" {
			t.Fatalf("Wait = %+v, %v, want Succeeded with the VM vm1, HTTPStatus 0 (no poll)", out, err)
		}
		if n := requests.Load(); n != 0 {
			t.Fatalf("%d requests, want none", n)
		}
	})
}

// noResponse is a polling handler whose Poll returns no response and no
// error.
type noResponse struct{}

func (noResponse) Done() bool                                    { return false }
func (noResponse) Poll(context.Context) (*http.Response, error)  { return nil, nil }
func (noResponse) Result(context.Context, *createResponse) error { return nil }

// TestAPollReturningNoResponseFails: a poller whose Poll returns neither
// a response nor an error (a custom PollingHandler's) ends the wait at
// once with an error that says so.
func TestAPollReturningNoResponseFails(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[createResponse], error) {
			return runtime.NewPoller(nil, runtime.Pipeline{}, &runtime.NewPollerOptions[createResponse]{Handler: noResponse{}})
		})
		if err != nil {
			t.Fatal(err)
		}
		_, attempts, _, err := statuses(t, w, "token", time.Hour)
		if !errors.Is(err, waiter.ErrFailure) || !strings.Contains(err.Error(), "returned no response") || len(attempts) != 1 {
			t.Fatalf("Wait = %v after %d attempts, want a failure saying Poll returned no response after 1", err, len(attempts))
		}
	})
}

// TestEveryAttemptCarriesAStatus: every attempt's Output is a *Status,
// Status "" and HTTPStatus 0 when there was no answer: a poll whose
// connection was reset, a token azcore refuses, a resume function that
// returns no poller.
func TestEveryAttemptCarriesAStatus(t *testing.T) {
	noPoller := func(ctx context.Context, token string) (*runtime.Poller[createResponse], error) { return nil, nil }
	for _, c := range []struct {
		name   string
		resume azwait.Resume[createResponse] // nil: the VM creation's
		token  string                        // "": the VM creation's
	}{
		{name: "a connection reset"},
		{name: "an invalid token", token: "not a token"},
		{name: "no poller", resume: noPoller},
	} {
		t.Run(c.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				vm := newVMWorld(t, 2, "")
				tok := vm.begin(t, "vm1")
				if c.token != "" {
					tok = c.token
				}
				resume := vm.resume("vm1")
				if c.resume != nil {
					resume = c.resume
				}
				vm.faults.next = &resets{next: vm.faults.next, n: 1, match: isFakePoll}
				w, err := azwait.New(resume)
				if err != nil {
					t.Fatal(err)
				}
				_, attempts, _, _ := statuses(t, w, tok, time.Hour)
				for i, a := range attempts {
					if a.Output == nil {
						t.Fatalf("attempt %d (err %v) has a nil Output", i+1, a.Err)
					}
				}
				if out := attempts[0].Output; out.Status != "" || out.HTTPStatus != 0 || attempts[0].Err == nil {
					t.Fatalf("first attempt = %+v, %v, want Status \"\", HTTPStatus 0 and an error", out, attempts[0].Err)
				}
			})
		})
	}
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
