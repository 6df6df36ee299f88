package tfwait_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/tfwait"
	"github.com/waitable/waitable/waiter"
)

// waitClusterCreated is a provider's waiter as providers write them: a
// StateChangeConf for a cluster's creation, now run by tfwait. opts are
// for the provider's tests (a clock).
func waitClusterCreated(ctx context.Context, api *cluster, timeout time.Duration, opts ...waiter.Option) (*object, error) {
	conf := &retry.StateChangeConf{
		Pending:                   []string{"creating"},
		Target:                    []string{"available"},
		Refresh:                   api.refresh,
		Timeout:                   timeout,
		Delay:                     30 * time.Second,
		MinTimeout:                10 * time.Second,
		ContinuousTargetOccurence: 2,
	}
	w, err := tfwait.StateChange(conf, opts...)
	if err != nil {
		return nil, err
	}
	out, err := wait(ctx, w, conf)
	if out, ok := out.(*object); ok {
		return out, err
	}
	return nil, err
}

// TestProviderTwentyMinuteCreate: a provider's test of a create that
// takes 17 minutes, with a 20-minute Timeout, runs at once in a synctest
// bubble, through the clock clocktest gives.
func TestProviderTwentyMinuteCreate(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		api := &cluster{now: time.Now, readyAt: start.Add(17 * time.Minute),
			fail: map[int]error{5: apiError("ThrottlingException", 400)}}
		out, err := waitClusterCreated(t.Context(), api, 20*time.Minute, waiter.WithClock(clocktest.Clock()))
		if err != nil || out.Status != "available" {
			t.Fatalf("waitClusterCreated() = %v, %v, want the available cluster", out, err)
		}
		elapsed := time.Since(start)
		if elapsed < 17*time.Minute || elapsed > 17*time.Minute+20*time.Second {
			t.Errorf("waitClusterCreated() took %v, want 17m and at most two 10s delays more", elapsed)
		}
		t.Logf("%d refreshes in %v of virtual time", api.calls, elapsed)
	})
}

// TestProviderWaitOnAMockClock: the same wait on a clock the test moves by
// hand (waiter.WithClock), outside a bubble: the refresh and the waiter
// read one clock.
func TestProviderWaitOnAMockClock(t *testing.T) {
	m := clocktest.NewMock()
	start := m.Now()
	api := &cluster{now: m.Now, readyAt: start.Add(17 * time.Minute)}
	conf := &retry.StateChangeConf{Pending: []string{"creating"}, Target: []string{"available"},
		Refresh: api.refresh, Timeout: 20 * time.Minute, PollInterval: time.Minute}
	w, err := tfwait.StateChange(conf, waiter.WithClock(m))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		out any
		err error
	}
	done := make(chan result)
	go func() {
		out, err := wait(t.Context(), w, conf)
		done <- result{out, err}
	}()
	// Arming 1 is the wait's deadline; each one after it a delay between
	// two refreshes: 17 of them, a minute each, before the 18th refresh.
	for n := 2; n <= 18; n++ {
		a := m.WaitArmed(n)
		m.Add(a.At.Add(a.Delay).Sub(m.Now()))
	}
	r := <-done
	if r.err != nil || r.out.(*object).Status != "available" || api.calls != 18 || m.Since(start) != 17*time.Minute {
		t.Errorf("Wait() = %v, %v after %d refreshes in %v, want the available cluster after 18 in 17m",
			r.out, r.err, api.calls, m.Since(start))
	}
}
