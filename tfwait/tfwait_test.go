package tfwait_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/tfwait"
	"github.com/waitable/waitable/waiter"
)

// apiError is an error as a cloud API's adapter returns it: a code and
// an HTTP status, which Waitable's retry strategy reads.
func apiError(code string, status int) *classify.CallError {
	return &classify.CallError{Code: code, StatusCode: status}
}

// cluster is a provider's resource behind a fake API: creating until
// readyAt, then available; now reads the test's clock.
type cluster struct {
	now     func() time.Time
	readyAt time.Time
	calls   int
	fail    map[int]error // the error of the n-th call (from 1), if any
}

func (c *cluster) refresh() (any, string, error) {
	c.calls++
	if err := c.fail[c.calls]; err != nil {
		return nil, "", err
	}
	state := "creating"
	if !c.now().Before(c.readyAt) {
		state = "available"
	}
	return &object{ID: "c-1", Status: state}, state, nil
}

func createConf(refresh retry.StateRefreshFunc, timeout time.Duration) *retry.StateChangeConf {
	return &retry.StateChangeConf{
		Pending: []string{"creating"},
		Target:  []string{"available"},
		Refresh: refresh,
		Timeout: timeout,
	}
}

// TestTransientRefreshErrorsAreRetried: a throttle and a 503 from the
// refresh end the SDK's wait; tfwait retries them within the budget, and
// with WithRetryStrategy(nil) ends on them as the SDK does.
func TestTransientRefreshErrorsAreRetried(t *testing.T) {
	throttle, unavailable := apiError("ThrottlingException", 400), apiError("ServiceUnavailable", 503)
	run := func(wait waitFunc) (out any, calls int, err error) {
		synctest.Test(t, func(t *testing.T) {
			c := &cluster{now: time.Now, readyAt: time.Now().Add(time.Minute), fail: map[int]error{2: throttle, 3: unavailable}}
			out, err = wait(t.Context(), createConf(c.refresh, 10*time.Minute))
			calls = c.calls
			synctest.Wait()
		})
		return out, calls, err
	}
	_, _, err := run(sdkWait)
	if err != throttle {
		t.Fatalf("WaitForStateContext() error = %v, want the throttle (the SDK ends on any error)", err)
	}
	out, calls, err := run(tfWait())
	if err != nil || out.(*object).Status != "available" || calls < 4 {
		t.Errorf("Wait() = %v, %v after %d refreshes, want the available cluster", out, err, calls)
	}
	_, calls, err = run(tfWait(waiter.WithRetryStrategy(nil)))
	if err != throttle || calls != 2 {
		t.Errorf("with WithRetryStrategy(nil), Wait() error = %v after %d refreshes, want the throttle after 2", err, calls)
	}
}

// TestTransientErrorsUntilTheDeadlineEndInTimeoutError: a refresh that
// answers 503 to the end times out, the 503 in the TimeoutError's
// LastError, where errors.As finds the API's error.
func TestTransientErrorsUntilTheDeadlineEndInTimeoutError(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		unavailable := apiError("ServiceUnavailable", 503)
		conf := createConf(func() (any, string, error) { return nil, "", unavailable }, 5*time.Minute)
		w, err := tfwait.StateChange(conf)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		out, err := wait(t.Context(), w, conf)
		var te *retry.TimeoutError
		var ae *classify.CallError
		if out != nil || !errors.As(err, &te) || te.LastError != unavailable || !errors.As(err, &ae) || te.Timeout != 5*time.Minute {
			t.Fatalf("Wait() = %v, %#v, want nil and a TimeoutError whose LastError is the 503", out, err)
		}
		if elapsed := time.Since(start); elapsed > 5*time.Minute || elapsed < 4*time.Minute {
			t.Errorf("Wait() took %v, want the 5m budget", elapsed)
		}
	})
}

// TestTheFinalPollLandsBeforeTheDeadline: a cluster available 2s before
// Timeout is seen by tfwait's final poll; the SDK, asleep for 10s, times
// out.
func TestTheFinalPollLandsBeforeTheDeadline(t *testing.T) {
	run := func(wait waitFunc) (err error) {
		synctest.Test(t, func(t *testing.T) {
			c := &cluster{now: time.Now, readyAt: time.Now().Add(58 * time.Second)}
			_, err = wait(t.Context(), createConf(c.refresh, time.Minute))
			synctest.Wait()
		})
		return err
	}
	var te *retry.TimeoutError
	if err := run(sdkWait); !errors.As(err, &te) {
		t.Fatalf("WaitForStateContext() error = %v, want a TimeoutError (the scenario no longer shows the difference)", err)
	}
	err := run(tfWait())
	if err != nil {
		t.Errorf("Wait() error = %v, want the cluster seen by the final poll", err)
	}
}

// TestContinuousTargetOccurenceStartsAgainOnAnyOtherAnswer: a nil result
// between two target answers breaks the streak here; the SDK lets it
// through.
func TestContinuousTargetOccurenceStartsAgainOnAnyOtherAnswer(t *testing.T) {
	c := parityCase{conf: continuous(conf([]string{"creating"}, []string{"available"}), 2),
		steps: []step{found("available"), gone, found("available"), found("available")}}
	if sdk := waitSDK(t, c); sdk.err != nil || sdk.calls != 3 {
		t.Fatalf("WaitForStateContext() = %v after %d refreshes, want success after 3", sdk.err, sdk.calls)
	}
	if ours := waitTF(t, c); ours.err != nil || ours.calls != 4 {
		t.Errorf("Wait() = %v after %d refreshes, want success after 4 (two target answers in a row)", ours.err, ours.calls)
	}
}

// TestMinTimeoutOverTenSeconds: "with a MinTimeout of 30s its [the
// SDK's] refreshes come at 0, 30, 40, 70 and 80s, tfwait's at 0, 30, 60
// and 90s" (the package doc, without jitter).
func TestMinTimeoutOverTenSeconds(t *testing.T) {
	c := parityCase{conf: minTimeout(conf([]string{"creating"}, []string{"available"}), 30*time.Second),
		steps: seq(repeat(found("creating"), 4), []step{found("available")})}
	sdk, _ := timedRun(t, c, sdkWait)
	ours, _ := timedRun(t, c, tfWait(waiter.WithJitter(backoff.High)))
	s := time.Second
	if want := []time.Duration{0, 30 * s, 40 * s, 70 * s, 80 * s}; !slices.Equal(sdk, want) {
		t.Errorf("WaitForStateContext's refreshes at %v, want %v", sdk, want)
	}
	if want := []time.Duration{0, 30 * s, 60 * s, 90 * s, 120 * s}; !slices.Equal(ours, want) {
		t.Errorf("tfwait's refreshes at %v, want %v", ours, want)
	}
}

// TestAnInterruptedStreak: the package doc's ContinuousTargetOccurence of
// 3 after "three pending answers, two target ones and a pending one": the
// SDK confirms at the delay it had (0.8s) and goes on doubling it (1.6s);
// tfwait, without jitter, confirms at MinDelay (0.2s) and goes on at the
// schedule's delay for the seventh poll (6.4s), then confirms at MinDelay.
func TestAnInterruptedStreak(t *testing.T) {
	c := parityCase{conf: continuous(conf([]string{"creating"}, []string{"available"}), 3),
		steps: seq(repeat(found("creating"), 3), repeat(found("available"), 2), []step{found("creating")}, repeat(found("available"), 3))}
	sdk, _ := timedRun(t, c, sdkWait)
	ours, e := timedRun(t, c, tfWait(waiter.WithJitter(backoff.High)))
	ms := time.Millisecond
	if want := []time.Duration{0, 200 * ms, 600 * ms, 1400 * ms, 2200 * ms, 3000 * ms, 4600 * ms, 6200 * ms, 7800 * ms}; !slices.Equal(sdk, want) {
		t.Errorf("WaitForStateContext's refreshes at %v, want %v", sdk, want)
	}
	if want := []time.Duration{0, 200 * ms, 600 * ms, 1400 * ms, 1600 * ms, 1800 * ms, 8200 * ms, 8400 * ms, 8600 * ms}; !slices.Equal(ours, want) {
		t.Errorf("tfwait's refreshes at %v, want %v", ours, want)
	}
	if e.err != nil {
		t.Errorf("Wait() = %v, want success", e.err)
	}
}

// TestMinTimeoutStaysTheShortestDelay: with a MinTimeout of 30s every
// delay is at least 30s (the SDK falls to 10s after the first).
func TestMinTimeoutStaysTheShortestDelay(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var at []time.Time
		conf := createConf(func() (any, string, error) {
			at = append(at, time.Now())
			return &object{}, "creating", nil
		}, 5*time.Minute)
		conf.MinTimeout = 30 * time.Second
		w, err := tfwait.StateChange(conf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wait(t.Context(), w, conf); err == nil {
			t.Fatal("Wait() succeeded, want a timeout")
		}
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < 30*time.Second {
				t.Errorf("refresh %d came %v after the one before, want at least MinTimeout, 30s", i+1, gap)
			}
		}
		if len(at) < 3 {
			t.Errorf("%d refreshes in 5m, want at least 3", len(at))
		}
	})
}

// TestStateChangeRejectsABadConf: every problem is listed at once.
func TestStateChangeRejectsABadConf(t *testing.T) {
	_, err := tfwait.StateChange(&retry.StateChangeConf{Delay: -1, MinTimeout: -1, PollInterval: -1,
		NotFoundChecks: -1, ContinuousTargetOccurence: -1})
	for _, want := range []string{"Refresh is nil", "Timeout is 0s", "Delay is -1ns", "MinTimeout is -1ns",
		"PollInterval is -1ns", "NotFoundChecks is -1", "ContinuousTargetOccurence is -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("StateChange(bad conf) error = %v, want it to say %q", err, want)
		}
	}
	if err != nil && !strings.HasPrefix(err.Error(), "tfwait: ") {
		t.Errorf("StateChange(bad conf) error = %q, want the prefix tfwait: ", err)
	}
	if _, err := tfwait.StateChange(nil); err == nil {
		t.Error("StateChange(nil) error = nil, want an error")
	}
	refresh := func(context.Context) (any, string, error) { return nil, "", nil }
	if _, err := tfwait.StateChangeFunc(createConf(func() (any, string, error) { return nil, "", nil }, time.Minute), refresh); err == nil {
		t.Error("StateChangeFunc(conf with a Refresh, refresh) error = nil, want an error: two refreshes")
	}
	if _, err := tfwait.StateChangeFunc(createConf(nil, time.Minute), nil); err == nil || !strings.Contains(err.Error(), "refresh is nil") {
		t.Errorf("StateChangeFunc(conf, nil) error = %v, want the refresh is nil", err)
	}
	if _, err := tfwait.StateChange(createConf(refreshOf("available"), time.Minute), waiter.WithDelays(2, 1)); err == nil ||
		!errors.Is(err, waiter.ErrInvalidOption) || !strings.HasPrefix(err.Error(), "tfwait: ") {
		t.Errorf("StateChange(conf, bad option) error = %v, want the waiter's ErrInvalidOption, prefixed tfwait: ", err)
	}
}

func refreshOf(state string) retry.StateRefreshFunc {
	return func() (any, string, error) { return &object{Status: state}, state, nil }
}

// TestStateChangeLeavesTheConfAsItIs: WaitForStateContext writes its
// defaults into the conf; StateChange reads it and changes nothing.
func TestStateChangeLeavesTheConfAsItIs(t *testing.T) {
	conf := createConf(refreshOf("available"), time.Minute)
	w, err := tfwait.StateChange(conf)
	if err != nil {
		t.Fatal(err)
	}
	conf.Target[0] = "changed later"
	if _, err := wait(t.Context(), w, conf); err != nil || conf.NotFoundChecks != 0 || conf.ContinuousTargetOccurence != 0 {
		t.Errorf("Wait() = %v, conf %+v; want success and the conf unchanged", err, conf)
	}
}

// TestStateChangeFuncRefreshGetsThePollsContext: a framework provider's
// refresh gets a context that ends at the wait's deadline.
func TestStateChangeFuncRefreshGetsThePollsContext(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		var deadlines []time.Time
		refresh := func(ctx context.Context) (any, string, error) {
			dl, _ := ctx.Deadline()
			deadlines = append(deadlines, dl)
			if len(deadlines) == 3 {
				return &object{Status: "available"}, "available", nil
			}
			return &object{Status: "creating"}, "creating", nil
		}
		conf := &retry.StateChangeConf{Pending: []string{"creating"}, Target: []string{"available"}, Timeout: 20 * time.Minute}
		w, err := tfwait.StateChangeFunc(conf, refresh)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := wait(t.Context(), w, conf); err != nil || out.(*object).Status != "available" {
			t.Fatalf("Wait() = %v, %v, want the available object", out, err)
		}
		for i, dl := range deadlines {
			if !dl.Equal(start.Add(20 * time.Minute)) {
				t.Errorf("refresh %d: ctx.Deadline() = %v, want the wait's, start+20m", i+1, dl.Sub(start))
			}
		}
	})
}

// TestAContextDeadlineIsTheWaitsDeadline: a context's deadline before
// Timeout ends the wait with a TimeoutError (the SDK returns
// context.DeadlineExceeded), by the deadline.
func TestAContextDeadlineIsTheWaitsDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		conf := createConf(refreshOf("creating"), time.Hour)
		w, err := tfwait.StateChange(conf)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = wait(ctx, w, conf)
		var te *retry.TimeoutError
		if !errors.As(err, &te) || te.LastState != "creating" || time.Since(start) > time.Minute {
			t.Errorf("Wait() error = %v after %v, want a TimeoutError by the context's 1m deadline", err, time.Since(start))
		}
	})
}

// TestDelayPastTimeoutTimesOutWithoutRefresh: a Delay of Timeout or more
// makes no refresh, as in the SDK, whose Timeout comes first: the wait
// ends at Timeout with a TimeoutError whose LastState is empty, or at
// once with ctx's error when the caller cancels. A context's deadline
// sooner than Delay shortens it instead: the refresh comes before it.
// (At Delay == Timeout the SDK's two timers fire at the same instant and
// either may win, so the SDK is not run beside it here; the parity table
// runs it at a Delay over Timeout.)
func TestDelayPastTimeoutTimesOutWithoutRefresh(t *testing.T) {
	for _, c := range []struct {
		name          string
		delay         time.Duration
		cancel        time.Duration // cancel the wait after this long (0: never)
		ctxDeadline   time.Duration // the context's deadline (0: none)
		wantCalls     int
		wantElapsed   time.Duration
		wantCancelled bool
	}{
		{name: "Delay == Timeout", delay: 10 * time.Minute, wantElapsed: 10 * time.Minute},
		{name: "Delay > Timeout", delay: time.Hour, wantElapsed: 10 * time.Minute},
		{name: "Delay > Timeout, cancelled", delay: time.Hour, cancel: 90 * time.Second,
			wantElapsed: 90 * time.Second, wantCancelled: true},
		{name: "Delay past a context's deadline", delay: 5 * time.Minute, ctxDeadline: time.Minute, wantCalls: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				calls := 0
				conf := createConf(func() (any, string, error) {
					calls++
					return &object{Status: "available"}, "available", nil
				}, 10*time.Minute)
				conf.Delay = c.delay
				w, err := tfwait.StateChange(conf)
				if err != nil {
					t.Fatal(err)
				}
				ctx := cancelAfter(t, c.cancel)
				if c.ctxDeadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, c.ctxDeadline)
					defer cancel()
				}
				start := time.Now()
				out, err := wait(ctx, w, conf)
				elapsed := time.Since(start)
				var te *retry.TimeoutError
				switch {
				case calls != c.wantCalls:
					t.Errorf("Wait() made %d refreshes, want %d", calls, c.wantCalls)
				case c.wantCalls > 0:
					if err != nil || elapsed > c.ctxDeadline {
						t.Errorf("Wait() = %v, %v after %v, want the refresh's success before the context's deadline", out, err, elapsed)
					}
				case c.wantCancelled:
					if out != nil || err != context.Canceled || elapsed != c.wantElapsed {
						t.Errorf("Wait() = %v, %v after %v, want nil and context.Canceled after %v", out, err, elapsed, c.wantElapsed)
					}
				case out != nil || !errors.As(err, &te) || te.LastState != "" || te.LastError != nil || elapsed != c.wantElapsed:
					t.Errorf("Wait() = %v, %#v after %v, want nil and a TimeoutError with no last state after %v",
						out, err, elapsed, c.wantElapsed)
				}
			})
		})
	}
}

// TestStateChangeRejectsANilOption: a nil waiter.Option is an error that
// says so, not a panic.
func TestStateChangeRejectsANilOption(t *testing.T) {
	_, err := tfwait.StateChange(createConf(refreshOf("available"), time.Minute), nil)
	if err == nil || !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "nil") {
		t.Errorf("StateChange(conf, nil option) error = %v, want the waiter's ErrInvalidOption naming the nil option", err)
	}
}

// TestNotFoundErrorCountsTheNilResultsSeen: a NotFoundError's Retries is
// the number of nil results in a row the wait saw, also when an option
// of the caller's (waiter.WithNotFoundLimit(2)) overrides NotFoundChecks.
func TestNotFoundErrorCountsTheNilResultsSeen(t *testing.T) {
	c := parityCase{conf: notFoundChecks(conf([]string{"creating"}, []string{"available"}), 5),
		steps: []step{found("creating"), gone}}
	_, e := timedRun(t, c, tfWait(waiter.WithNotFoundLimit(2)))
	var nf *retry.NotFoundError
	if e.result != nil || !errors.As(e.err, &nf) || e.calls != 3 || nf.Retries != 2 {
		t.Errorf("Wait() = %v, %#v after %d refreshes, want nil and a NotFoundError after 3 whose Retries is 2", e.result, e.err, e.calls)
	}
}

// TestOptionEndsReturnTheWaitersError: "A wait ended by an option of its
// own ([waiter.WithMaxPolls], [waiter.WithTransientLimit]) returns the
// waiter's [*waiter.Error]", with a nil result.
func TestOptionEndsReturnTheWaitersError(t *testing.T) {
	pending := parityCase{conf: conf([]string{"creating"}, []string{"available"}), steps: []step{found("creating")}}
	_, e := timedRun(t, pending, tfWait(waiter.WithMaxPolls(3)))
	var we *waiter.Error
	if e.result != nil || !errors.As(e.err, &we) || !errors.Is(e.err, waiter.ErrMaxPolls) || e.calls != 3 {
		t.Errorf("WithMaxPolls(3): Wait() = %v, %v after %d refreshes, want nil and the waiter's Error after 3", e.result, e.err, e.calls)
	}
	throttled := parityCase{conf: conf([]string{"creating"}, []string{"available"}),
		steps: []step{found("creating"), {err: apiError("ServiceUnavailable", 503)}}}
	_, e = timedRun(t, throttled, tfWait(waiter.WithTransientLimit(2)))
	if e.result != nil || !errors.As(e.err, &we) || we.Failure != waiter.FailureTransientLimit || e.calls != 3 {
		t.Errorf("WithTransientLimit(2): Wait() = %v, %v after %d refreshes, want nil and the waiter's Error after 3", e.result, e.err, e.calls)
	}
}

type waitKey struct{}

// TestConcurrentWaitsAreWaitsOfTheirOwn: one Waiter "is safe for
// concurrent use, each Waiter.Wait being a wait of its own": three
// waits at once each return their own object.
func TestConcurrentWaitsAreWaitsOfTheirOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		calls := map[string]int{}
		refresh := func(ctx context.Context) (any, string, error) {
			id := ctx.Value(waitKey{}).(string)
			mu.Lock()
			calls[id]++
			n := calls[id]
			mu.Unlock()
			if n < 4 {
				return &object{ID: id, Status: "creating"}, "creating", nil
			}
			return &object{ID: id, Status: "available"}, "available", nil
		}
		conf := &retry.StateChangeConf{Pending: []string{"creating"}, Target: []string{"available"}, Timeout: 10 * time.Minute}
		w, err := tfwait.StateChangeFunc(conf, refresh)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, id := range []string{"a", "b", "c"} {
			wg.Go(func() {
				out, err := wait(context.WithValue(t.Context(), waitKey{}, id), w, conf)
				if o, ok := out.(*object); err != nil || !ok || o.ID != id || o.Status != "available" {
					t.Errorf("wait %s: Wait() = %v, %v, want its own available object", id, out, err)
				}
			})
		}
		wg.Wait()
	})
}

// goroutineID is the calling goroutine's header line in a stack trace.
func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	return string(b[:bytes.IndexByte(b, '[')])
}

// TestRefreshRunsInTheWaitingGoroutine: "Refresh: called once a poll, in
// the goroutine that waits".
func TestRefreshRunsInTheWaitingGoroutine(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var ids []string
		conf := createConf(func() (any, string, error) {
			ids = append(ids, goroutineID())
			if len(ids) < 3 {
				return &object{}, "creating", nil
			}
			return &object{}, "available", nil
		}, time.Minute)
		w, err := tfwait.StateChange(conf)
		if err != nil {
			t.Fatal(err)
		}
		me := goroutineID()
		if _, err := wait(t.Context(), w, conf); err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			if id != me {
				t.Errorf("refresh %d ran in %q, want the waiting %q", i+1, id, me)
			}
		}
	})
}

// TestTransientErrorsWaitForTheirRetryAfter: a transient error is retried
// "never sooner than a Retry-After the error carries".
func TestTransientErrorsWaitForTheirRetryAfter(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var at []time.Time
		conf := createConf(func() (any, string, error) {
			at = append(at, time.Now())
			if len(at) == 2 {
				return nil, "", &classify.CallError{Code: "ServiceUnavailable", StatusCode: 503, RetryAfter: 45 * time.Second}
			}
			if len(at) < 4 {
				return &object{}, "creating", nil
			}
			return &object{}, "available", nil
		}, 10*time.Minute)
		w, err := tfwait.StateChange(conf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wait(t.Context(), w, conf); err != nil {
			t.Fatal(err)
		}
		if gap := at[2].Sub(at[1]); gap < 45*time.Second {
			t.Errorf("the refresh after the 503 came %v after it, want at least its Retry-After, 45s", gap)
		}
	})
}

// TestCancelDuringAContextAwareRefresh: a cancelled context ends the wait
// with a nil result and ctx's own error, also when StateChangeFunc's
// refresh, honouring the poll's context, returns an error of its own
// wrapping the cancellation.
func TestCancelDuringAContextAwareRefresh(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		ctx := cancelAfter(t, 90*time.Second)
		calls := 0
		refresh := func(ctx context.Context) (any, string, error) {
			if calls++; calls < 3 {
				return &object{Status: "creating"}, "creating", nil
			}
			<-ctx.Done()
			return &object{Status: "creating"}, "creating", fmt.Errorf("describing the cluster: %w", ctx.Err())
		}
		conf := &retry.StateChangeConf{Pending: []string{"creating"}, Target: []string{"available"}, Timeout: 10 * time.Minute}
		w, err := tfwait.StateChangeFunc(conf, refresh)
		if err != nil {
			t.Fatal(err)
		}
		out, err := wait(ctx, w, conf)
		if out != nil || err != context.Canceled {
			t.Errorf("Wait() = %v, %v (%T), want nil and ctx's error, context.Canceled", out, err, err)
		}
	})
}

// TestARefreshPastTheDeadlineIsNotJudged: StateChangeFunc's refresh, cut
// short by its context at the deadline, ends the wait at Timeout;
// StateChange's Refresh, which cannot be cut short, is waited for, 30s
// past Timeout here. Either way the late answer is not judged (the SDK,
// within its grace period, takes the target state it brings): a nil
// result and a TimeoutError whose LastState and LastError are those of
// the refresh before it.
func TestARefreshPastTheDeadlineIsNotJudged(t *testing.T) {
	t.Run("StateChangeFunc: cut at the deadline", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			calls := 0
			refresh := func(ctx context.Context) (any, string, error) {
				if calls++; calls < 3 {
					return &object{Status: "creating"}, "creating", nil
				}
				<-ctx.Done() // a hung API call
				return nil, "", fmt.Errorf("describing the cluster: %w", ctx.Err())
			}
			conf := &retry.StateChangeConf{Pending: []string{"creating"}, Target: []string{"available"}, Timeout: 10 * time.Minute}
			w, err := tfwait.StateChangeFunc(conf, refresh)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out, err := wait(t.Context(), w, conf)
			var te *retry.TimeoutError
			if out != nil || !errors.As(err, &te) || te.LastState != "creating" || te.LastError != nil || time.Since(start) != 10*time.Minute {
				t.Errorf("Wait() = %v, %#v after %v, want nil and a TimeoutError, last state creating, at 10m", out, err, time.Since(start))
			}
		})
	})
	t.Run("StateChange: waited for", func(t *testing.T) {
		// Refreshes every 10s; one that starts at 50s or later takes 30s
		// and finds the cluster available.
		run := func(wait waitFunc) (out any, lastStart, elapsed time.Duration, err error) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				conf := createConf(func() (any, string, error) {
					if lastStart = time.Since(start); lastStart < 50*time.Second {
						return &object{Status: "creating"}, "creating", nil
					}
					time.Sleep(30 * time.Second) // a slow API call
					return &object{Status: "available"}, "available", nil
				}, time.Minute)
				conf.PollInterval = 10 * time.Second
				out, err = wait(t.Context(), conf)
				elapsed = time.Since(start)
				synctest.Wait()
			})
			return out, lastStart, elapsed, err
		}
		if out, _, _, err := run(sdkWait); err != nil || out == nil {
			t.Fatalf("WaitForStateContext() = %v, %v, want the late refresh's available cluster (the scenario no longer shows the difference)", out, err)
		}
		out, lastStart, elapsed, err := run(tfWait())
		var te *retry.TimeoutError
		if out != nil || !errors.As(err, &te) || te.LastState != "creating" || te.LastError != nil {
			t.Errorf("Wait() = %v, %#v, want nil and a TimeoutError whose last state is creating", out, err)
		}
		if lastStart >= time.Minute || elapsed != lastStart+30*time.Second {
			t.Errorf("Wait() returned after %v, the last refresh starting at %v, want it to return when that refresh, in flight at the 1m deadline, returned",
				elapsed, lastStart)
		}
	})
	t.Run("StateChange: late with an error", func(t *testing.T) {
		// The refresh in flight at the deadline returns a 503 after it: not
		// judged either, so no LastError.
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			conf := createConf(func() (any, string, error) {
				if time.Since(start) < 50*time.Second {
					return &object{Status: "creating"}, "creating", nil
				}
				time.Sleep(30 * time.Second) // a slow API call, that fails
				return nil, "", &classify.CallError{Err: errors.New("describing the cluster: 503"), StatusCode: 503}
			}, time.Minute)
			conf.PollInterval = 10 * time.Second
			out, err := tfWait()(t.Context(), conf)
			var te *retry.TimeoutError
			if out != nil || !errors.As(err, &te) || te.LastState != "creating" || te.LastError != nil {
				t.Errorf("Wait() = %v, %#v, want nil and a TimeoutError whose last state is creating, with no LastError", out, err)
			}
			synctest.Wait()
		})
	})
}

// TestRetryAfterDateOnTheServicesClock: a refresh's 503 whose Retry-After
// is an HTTP date 40s after the answer's Date, read by classify's one
// reader of the hint, makes the next refresh come 40s later, whether the
// service's clock agrees with the bubble's or is an hour ahead of it.
func TestRetryAfterDateOnTheServicesClock(t *testing.T) {
	for _, skew := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprint("service clock ahead by ", skew), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				var at []time.Time
				conf := createConf(func() (any, string, error) {
					at = append(at, time.Now())
					if len(at) == 1 {
						service := time.Now().Add(skew)
						h := http.Header{"Date": {service.Format(http.TimeFormat)}, "Retry-After": {service.Add(40 * time.Second).Format(http.TimeFormat)}}
						after, _ := classify.RetryAfterHeader(h, time.Time{})
						return nil, "", &classify.CallError{StatusCode: 503, RetryAfter: after}
					}
					return &object{}, "available", nil
				}, 10*time.Minute)
				w, err := tfwait.StateChange(conf)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := wait(t.Context(), w, conf); err != nil {
					t.Fatal(err)
				}
				if len(at) != 2 || at[1].Sub(at[0]) != 40*time.Second {
					t.Errorf("refreshes at %v, want two, 40s apart", at)
				}
			})
		})
	}
}
