package tfwait_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/tfwait"
	"github.com/waitable/waitable/waiter"
)

// apiError is an error as cloud SDKs return them: a code and an HTTP
// status, which Waitable's retry strategy reads.
type apiError struct {
	code   string
	status int
}

func (e *apiError) Error() string       { return e.code }
func (e *apiError) ErrorCode() string   { return e.code }
func (e *apiError) HTTPStatusCode() int { return e.status }

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
	throttle, unavailable := &apiError{"ThrottlingException", 400}, &apiError{"ServiceUnavailable", 503}
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
		unavailable := &apiError{"ServiceUnavailable", 503}
		w, err := tfwait.StateChange(createConf(func() (any, string, error) { return nil, "", unavailable }, 5*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		out, err := w.Wait(t.Context())
		var te *retry.TimeoutError
		var ae *apiError
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
		if _, err := w.Wait(t.Context()); err == nil {
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
	if _, err := w.Wait(t.Context()); err != nil || conf.NotFoundChecks != 0 || conf.ContinuousTargetOccurence != 0 {
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
		w, err := tfwait.StateChangeFunc(&retry.StateChangeConf{Pending: []string{"creating"}, Target: []string{"available"},
			Timeout: 20 * time.Minute}, refresh)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := w.Wait(t.Context()); err != nil || out.(*object).Status != "available" {
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
		w, err := tfwait.StateChange(createConf(refreshOf("creating"), time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = w.Wait(ctx)
		var te *retry.TimeoutError
		if !errors.As(err, &te) || te.LastState != "creating" || time.Since(start) > time.Minute {
			t.Errorf("Wait() error = %v after %v, want a TimeoutError by the context's 1m deadline", err, time.Since(start))
		}
	})
}
