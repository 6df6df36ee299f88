package waiter_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// One time base: every reading of time, the caller's context deadline
// included, goes through the waiter's clock (WithClock). A context made
// on a mock clock has its deadline on that clock.

// TestCallerDeadlineReadOnTheWaitersClock: a 5-minute wait with 1s delays
// under a context of 10 minutes made on the waiter's Mock (whose time is
// not the real one) polls until the resource is ready; under a context
// of 30 seconds on the same Mock, it times out at 30 seconds of mock time,
// not at once. Wait, Start and a Batch member alike.
func TestCallerDeadlineReadOnTheWaitersClock(t *testing.T) {
	for _, entry := range []string{"Wait", "Start", "Batch"} {
		t.Run(entry, func(t *testing.T) {
			for _, tc := range []struct {
				name    string
				ctxTime time.Duration
				ready   int
				want    error
				elapsed time.Duration
			}{
				{"caller's deadline later than maxWait", 10 * time.Minute, 4, nil, 3 * time.Second},
				{"caller's deadline earlier than maxWait", 30 * time.Second, 1000, waiter.ErrTimeout, 30 * time.Second},
			} {
				t.Run(tc.name, func(t *testing.T) {
					m := clocktest.NewMock()
					ctx, cancel := m.WithTimeout(context.Background(), tc.ctxTime)
					defer cancel()
					out, calls, elapsed, err := waitOnMock(t, entry, m, ctx, tc.ready)
					if !errors.Is(err, tc.want) || (tc.want == nil && (out == nil || calls != tc.ready)) || elapsed < tc.elapsed-time.Second || elapsed > tc.elapsed {
						t.Errorf("%s under a context of %v on the Mock = %v after %d calls in %v of mock time; want %v after %v",
							entry, tc.ctxTime, err, calls, elapsed, tc.want, tc.elapsed)
					}
				})
			}
		})
	}
}

// waitOnMock waits 5 minutes with 1s delays for a resource ready at the
// call numbered ready, with entry (Wait, Start or a Batch), on Mock m,
// moving m to the end of each sleep until the wait ends. It returns the
// outcome, the calls made and the mock time the wait took.
func waitOnMock(t *testing.T, entry string, m *clocktest.Mock, ctx context.Context, ready int) (*GetThingOutput, int, time.Duration, error) {
	t.Helper()
	start := m.Now()
	rec := newRecorder(func(n int) (*GetThingOutput, error) {
		if n < ready {
			return status("creating"), nil
		}
		return status("success"), nil
	})
	opts := []waiter.Option{waiter.WithClock(m), waiter.WithDelays(time.Second, time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true})}
	type result struct {
		out *GetThingOutput
		err error
	}
	done := make(chan result, 1)
	switch entry {
	case "Wait":
		w := mustNew(t, thingExists, rec.op, opts...)
		go func() {
			out, err := w.Wait(ctx, GetThingInput{"a"}, 5*time.Minute)
			done <- result{out, err}
		}()
	case "Start":
		w := mustNew(t, thingExists, rec.op, opts...)
		r := w.Start(ctx, GetThingInput{"a"}, 5*time.Minute)
		go func() {
			out, err := r.Result()
			done <- result{out, err}
		}()
	case "Batch":
		b, err := waiter.NewBatch(thingExists, func(ctx context.Context, keys []string) (map[string]*GetThingOutput, error) {
			out, err := rec.op(ctx, GetThingInput{keys[0]})
			return map[string]*GetThingOutput{keys[0]: out}, err
		}, waiter.BatchOptions[string, *GetThingOutput]{Linger: -1}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Add(ctx, "a", 5*time.Minute)
		go func() {
			out, err := r.Result()
			done <- result{out, err}
		}()
	}
	// Move the time to the end of each sleep (1s, 2s before the final
	// call), leaving the deadlines' armings alone, until the wait ends.
	for n := 1; ; n++ {
		armed := make(chan clocktest.Arming, 1)
		go func() { armed <- m.WaitArmed(n) }()
		select {
		case r := <-done:
			elapsed := m.Now().Sub(start)
			m.Timer(time.Hour).Stop() // an arming: releases the WaitArmed above
			<-armed
			return r.out, len(rec.times()), elapsed, r.err
		case a := <-armed:
			if a.Delay < 10*time.Second {
				m.Set(a.At.Add(a.Delay))
			}
		}
	}
}

// TestCallerDeadlineReadOnTheWaitersClockInSynctest: in a testing/synctest
// bubble, whose time is not the Mock's either, a context of 10 minutes on
// the waiter's clock.Mock (github.com/benbjohnson/clock's) gives a
// 5-minute wait its whole budget: it polls until the resource is ready,
// not "timed out after 1 poll in 0s".
func TestCallerDeadlineReadOnTheWaitersClockInSynctest(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		m := clock.NewMock() // 1970, the bubble is in 2000
		ctx, cancel := m.WithTimeout(t.Context(), 10*time.Minute)
		defer cancel()
		calls := 0
		op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
			if calls++; calls < 3 {
				return status("creating"), nil
			}
			return status("success"), nil
		}
		w := mustNew(t, thingExists, op, waiter.WithClock(m), waiter.WithDelays(time.Second, time.Second),
			waiter.WithTelemetry(telemetry.Settings{Off: true}))
		r := w.Start(ctx, GetThingInput{"a"}, 5*time.Minute)
		for range 2 {
			clocktest.Settle() // the run sleeps on the Mock
			m.Add(time.Second)
		}
		clocktest.Settle()
		if _, err := r.Result(); err != nil || calls != 3 {
			t.Errorf("Start under a context of 10m on the Mock = %v after %d calls; want success after 3", err, calls)
		}
	})
}
