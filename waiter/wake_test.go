package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/waiter"
)

// TestSharedWakeUps: the waits of a Group polled on one schedule without
// jitter sleep until the same instants and share a timer (the first to
// park leads).
// Whichever of them are cancelled, and when (while sleeping, at the very
// instant they are due, during a call), every other wait polls at exactly
// the instants its schedule gives, and every cancelled one ends cancelled
// having made no call after its cancellation.
func TestSharedWakeUps(t *testing.T) {
	for seed := range uint64(20) {
		synctest.Test(t, func(t *testing.T) {
			const n, polls, delay = 300, 5, 2 * time.Second
			rng := rand.New(rand.NewPCG(seed, 7))
			var mu sync.Mutex
			calls := make([][]time.Duration, n)
			start := time.Now()
			op := func(ctx context.Context, i int) (*GetThingOutput, error) {
				mu.Lock()
				calls[i] = append(calls[i], time.Since(start))
				k := len(calls[i])
				mu.Unlock()
				if i%3 == 0 { // a call that takes a while
					time.Sleep(time.Duration(i%7) * 100 * time.Millisecond)
				}
				if k == polls {
					return status("success"), nil
				}
				return status("creating"), nil
			}
			w, err := waiter.New(thingExists, op, waiter.WithDelays(delay, delay))
			if err != nil {
				t.Fatal(err)
			}
			g := waiter.NewGroup(t.Context())
			runs := make([]*waiter.Run[*GetThingOutput], n)
			for i := range runs {
				runs[i] = waiter.Go(g, w, i, time.Hour)
			}
			// Cancel a third of them at random instants, on the half
			// second: between polls, on a poll's instant, during calls.
			cancelAt := make([]time.Duration, n)
			for i := range cancelAt {
				if rng.IntN(3) == 0 {
					cancelAt[i] = time.Duration(rng.IntN(2*polls*int(delay/time.Second))) * time.Second / 2
				}
			}
			for step := time.Duration(0); step <= 2*polls*delay; step += time.Second / 2 {
				time.Sleep(step - time.Since(start))
				for i, at := range cancelAt {
					if at == step && at > 0 {
						runs[i].Cancel()
					}
				}
			}
			for i, r := range runs {
				_, err := r.Result()
				mu.Lock()
				got := calls[i]
				mu.Unlock()
				lat := time.Duration(0)
				if i%3 == 0 {
					lat = time.Duration(i%7) * 100 * time.Millisecond
				}
				for k, c := range got {
					if want := time.Duration(k) * (delay + lat); c != want {
						t.Fatalf("seed %d wait %d: call %d at %v, want %v", seed, i, k+1, c, want)
					}
					if cancelAt[i] > 0 && c > cancelAt[i] {
						t.Fatalf("seed %d wait %d: call %d at %v, after its cancellation at %v", seed, i, k+1, c, cancelAt[i])
					}
				}
				switch {
				case err == nil && len(got) == polls:
				case errors.Is(err, context.Canceled) && cancelAt[i] > 0:
				default:
					t.Fatalf("seed %d wait %d (cancelled at %v): %d calls, error %v", seed, i, cancelAt[i], len(got), err)
				}
			}
			g.Wait()
		})
	}
}

// TestSharedWaiterAcrossBubbles: a Waiter shared by tests that run in
// parallel, each in its own synctest bubble whose virtual clock starts at
// the same instant, with waits started under context.Background(), under
// a context made outside the bubbles, under the bubble's own, and with
// WaitAll: a wait of one bubble must never be woken by another's timer
// (its goroutine would run in the wrong bubble: a fatal error).
func TestSharedWaiterAcrossBubbles(t *testing.T) {
	w := fourthCallWaiter(t)
	outer := t.Context()
	_ = outer.Done() // made outside any bubble: every bubble may use it
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				runs := make([]*waiter.Run[*GetThingOutput], 50)
				calls := make([]int, len(runs))
				// The waits of one bubble share timers, whatever their
				// contexts; never with another bubble's.
				for _, ctx := range []context.Context{context.Background(), t.Context(), outer} {
					for j := range runs {
						calls[j] = 0
						runs[j] = w.Start(ctx, &calls[j], time.Hour)
					}
					for j, r := range runs {
						if _, err := r.Result(); err != nil || calls[j] != 4 {
							t.Errorf("wait %d: %d calls, %v", j, calls[j], err)
						}
					}
				}
				inputs := make([]*int, 50)
				for j := range inputs {
					inputs[j] = new(int)
				}
				if _, err := waiter.WaitAll(context.Background(), w, inputs, time.Hour); err != nil {
					t.Error(err)
				}
			})
		})
	}
}

// TestWaitsOfTwoBubblesNeverShare: two synctest bubbles, their virtual
// clocks at the same instant, start a wait each under one context made
// outside both, and park until the same instant. Each wait must be woken
// by its own bubble's timer: woken by the other's, its calls would run in
// the wrong bubble, and its own clock would never see them.
func TestWaitsOfTwoBubblesNeverShare(t *testing.T) {
	w := fourthCallWaiter(t)
	outer, cancel := context.WithCancel(context.Background())
	defer cancel()
	_ = outer.Done() // made outside the bubbles: both may use it
	aStarted, bStarted := make(chan struct{}), make(chan struct{})
	t.Run("pair", func(t *testing.T) { // returns when both have
		t.Run("a", func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var calls int
				r := w.Start(outer, &calls, time.Hour)
				synctest.Wait() // it has polled once and sleeps
				close(aStarted)
				<-bStarted
				if _, err := r.Result(); err != nil {
					t.Error(err)
				}
			})
		})
		t.Run("b", func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				<-aStarted // not durably blocked: a's clock waits for b
				var calls int
				r := w.Start(outer, &calls, time.Hour)
				synctest.Wait()
				close(bStarted)
				if _, err := r.Result(); err != nil {
					t.Error(err)
				}
			})
		})
	})
}

// fourthCallWaiter returns a waiter, polling 2s apart, on an operation
// that reports success on the fourth call with the counter it is given.
func fourthCallWaiter(t *testing.T) *waiter.Waiter[*int, *GetThingOutput] {
	t.Helper()
	op := func(_ context.Context, calls *int) (*GetThingOutput, error) {
		if *calls++; *calls < 4 {
			return status("creating"), nil
		}
		return status("success"), nil
	}
	w, err := waiter.New(thingExists, op, waiter.WithDelays(2*time.Second, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return w
}
