package waiter_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// On the real clock, in virtual time, these tests hold Wait's calls'
// context to its contract however a call watches it: each call after the
// second outlives the wait's deadline.

// TestWaitDeadlineReachesEveryWatcher: a call that blocks on Done, one
// that derives a context with a later timeout of its own and blocks on
// that, one that only polls Err, and one that registers with
// context.AfterFunc all see the context end at the wait's deadline, with
// context.DeadlineExceeded; the wait times out at that instant (or, for
// the call that polls Err once a second, at its first poll after it).
func TestWaitDeadlineReachesEveryWatcher(t *testing.T) {
	const budget = 10 * time.Second
	watchers := map[string]func(ctx context.Context) error{
		"Done": func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
		"derived WithTimeout": func(ctx context.Context) error {
			c, cancel := context.WithTimeout(ctx, time.Hour)
			defer cancel()
			<-c.Done()
			return c.Err()
		},
		"Err only": func(ctx context.Context) error {
			for i := 0; ctx.Err() == nil && i < 100; i++ {
				time.Sleep(time.Second)
			}
			return ctx.Err()
		},
		"context.AfterFunc": func(ctx context.Context) error {
			ended := make(chan struct{})
			stop := context.AfterFunc(ctx, func() { close(ended) })
			defer stop()
			<-ended
			return ctx.Err()
		},
	}
	for name, watch := range watchers {
		t.Run(name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				begin := time.Now()
				calls := 0
				var seen error
				op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
					if calls++; calls < 3 {
						return status("pending"), nil
					}
					seen = watch(ctx)
					return nil, seen
				}
				w := mustNew(t, thingExists, op, waiter.WithDelays(time.Second, time.Second))
				_, err := w.Wait(t.Context(), GetThingInput{"a"}, budget)
				if !errors.Is(err, waiter.ErrTimeout) || !errors.Is(seen, context.DeadlineExceeded) {
					t.Fatalf("wait = %v, the call saw %v; want a timeout, and the call's context ended by its deadline", err, seen)
				}
				late := time.Duration(0)
				if name == "Err only" { // it may poll at the deadline's instant, just before the end
					late = time.Second
				}
				if got := time.Since(begin); got < budget || got > budget+late {
					t.Errorf("the wait ended after %v; want its budget, %v", got, budget)
				}
			})
		})
	}
}

// TestWaitCancelledMidSleep: a caller's context cancelled while the wait
// sleeps on the real clock ends it at that instant, with the context's
// error and cause, and no further call.
func TestWaitCancelledMidSleep(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		cause := errors.New("the operator pressed ^C")
		ctx, cancel := context.WithCancelCause(t.Context())
		calls := 0
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			calls++
			return status("pending"), nil
		}
		time.AfterFunc(2500*time.Millisecond, func() { cancel(cause) })
		begin := time.Now()
		w := mustNew(t, thingExists, op, waiter.WithDelays(time.Second, time.Second))
		_, err := w.Wait(ctx, GetThingInput{"a"}, time.Hour)
		var we *waiter.Error
		if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || !errors.As(err, &we) || we.Reason != cause {
			t.Fatalf("wait = %v; want context.Canceled with its cause as the Error's Reason", err)
		}
		if got := time.Since(begin); got != 2500*time.Millisecond || calls != 3 {
			t.Errorf("ended after %v and %d calls; want 2.5s and 3 calls", got, calls)
		}
	})
}

// TestWaitFromPastCallersDeadline: a wait resumed from a checkpoint whose
// next call is due after the caller's deadline times out at the caller's
// deadline, without the call.
func TestWaitFromPastCallersDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		calls := 0
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			calls++
			return status("pending"), nil
		}
		w := mustNew(t, thingExists, op, waiter.WithDelays(time.Minute, time.Minute))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(time.Second) // the first call is made; the next is due in a minute
		cp := r.Checkpoint()
		r.Cancel()
		<-r.Done()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		begin := time.Now()
		_, err := w.WaitFrom(ctx, GetThingInput{"a"}, cp)
		if !errors.Is(err, waiter.ErrTimeout) || calls != 1 {
			t.Fatalf("WaitFrom = %v after %d calls; want a timeout and no call", err, calls)
		}
		if got := time.Since(begin); got != 10*time.Second {
			t.Errorf("WaitFrom ended after %v; want the caller's 10s", got)
		}
	})
}
