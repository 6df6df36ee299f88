package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestSleepingWaitHoldsNoGoroutine: between calls, a Run (Start's, a
// Group's member's) and a WaitAll member hold no goroutine, only their
// timer; each still makes its calls on time, and a poke, Run.Cancel and
// the caller's context still end a sleep with no goroutine to wake.
func TestSleepingWaitHoldsNoGoroutine(t *testing.T) {
	const n = 50
	for _, entry := range []string{"Start", "WaitAll", "Group"} {
		t.Run(entry, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				var calls atomic.Int32
				op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
					if calls.Add(1) > 2*n {
						return status("success"), nil
					}
					return status("creating"), nil
				}
				w := mustNew(t, thingExists, op, waiter.WithDelays(time.Minute, time.Minute))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				inputs := make([]GetThingInput, n)
				for i := range inputs {
					inputs[i] = GetThingInput{fmt.Sprint(i)}
				}
				var runs []*waiter.Run[*GetThingOutput]
				switch entry {
				case "Start":
					for _, in := range inputs {
						runs = append(runs, w.Start(ctx, in, time.Hour))
					}
				case "WaitAll":
					go waiter.WaitAll(ctx, w, inputs, time.Hour, waiter.GroupOptions{})
				case "Group":
					g := waiter.NewGroup(ctx, waiter.GroupOptions{})
					for _, in := range inputs {
						runs = append(runs, waiter.Go(g, in.Name, w, in, time.Hour))
					}
				}
				clocktest.Settle()
				if got := int(calls.Load()); got != n {
					t.Fatalf("%d calls once every wait made its first, want %d", got, n)
				}
				if g := waitGoroutines(); g != 0 {
					t.Errorf("%d goroutines of waits while %d waits sleep, want 0", g, n)
				}
				time.Sleep(time.Minute) // every wait's second call, on time
				clocktest.Settle()
				if got := int(calls.Load()); got != 2*n {
					t.Errorf("%d calls a minute later, want %d", got, 2*n)
				}
				if g := waitGoroutines(); g != 0 {
					t.Errorf("%d goroutines of waits while %d waits sleep again, want 0", g, n)
				}
				if runs == nil {
					cancel() // the caller's context ends every sleep
					clocktest.Settle()
					if g := waitGoroutines(); g != 0 {
						t.Errorf("%d goroutines of waits left once the caller's context ended, want 0", g)
					}
					return
				}
				time.Sleep(time.Second) // a poke waits a second after the last call
				start := time.Now()
				runs[0].Poke() // the next call now, on a poke
				clocktest.Settle()
				if o, err := runs[0].Result(); err != nil || *o.Status != "success" || time.Since(start) != 0 {
					t.Errorf("a poked Run = %v, %v after %v; want success at once", o, err, time.Since(start))
				}
				runs[1].Cancel()
				if _, err := runs[1].Result(); !errors.Is(err, context.Canceled) || time.Since(start) != 0 {
					t.Errorf("a cancelled Run = %v after %v; want context.Canceled at once", err, time.Since(start))
				}
				cancel()
				for _, r := range runs[2:] {
					if _, err := r.Result(); !errors.Is(err, context.Canceled) || time.Since(start) != 0 {
						t.Fatalf("a Run whose caller's context ended = %v after %v; want context.Canceled at once", err, time.Since(start))
					}
				}
			})
		})
	}
}

// waitGoroutines counts the goroutines in a wait's loop, process-wide.
func waitGoroutines() int {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		panic(err)
	}
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "waiter.(*loop[") {
			n++
		}
	}
	return n
}

// TestPokeOrCancelAsTheAlarmRings: a poke or Run.Cancel that comes at the
// instant a parked wait's alarm rings resumes it once: never two calls at
// one instant, and a cancelled wait ends at that instant.
func TestPokeOrCancelAsTheAlarmRings(t *testing.T) {
	const n = 100
	clocktest.Run(t, func(t *testing.T) {
		type wait struct {
			r     *waiter.Run[*GetThingOutput]
			calls []time.Time
		}
		waits := make([]wait, 2*n)
		start := time.Now()
		for i := range waits {
			op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
				waits[i].calls = append(waits[i].calls, time.Now())
				if len(waits[i].calls) == 4 {
					return status("success"), nil
				}
				return status("creating"), nil
			}
			waits[i].r = mustNew(t, thingExists, op, waiter.WithDelays(2*time.Second, 2*time.Second)).
				Start(t.Context(), GetThingInput{fmt.Sprint(i)}, time.Hour)
			go func() {
				time.Sleep(2 * time.Second) // the instant the alarm rings
				if i < n {
					waits[i].r.Poke()
				} else {
					waits[i].r.Cancel()
				}
			}()
		}
		for i := range waits {
			_, err := waits[i].r.Result()
			w := waits[i]
			for k := 1; k < len(w.calls); k++ {
				if !w.calls[k].After(w.calls[k-1]) {
					t.Fatalf("wait %d: calls at %v", i, w.calls)
				}
			}
			if i < n && (err != nil || len(w.calls) != 4) {
				t.Errorf("poked wait %d = %v after calls at %v; want success after 4", i, err, w.calls)
			}
			if i >= n {
				last := w.calls[len(w.calls)-1]
				if !errors.Is(err, context.Canceled) || len(w.calls) > 2 || last.After(start.Add(2*time.Second)) {
					t.Errorf("cancelled wait %d = %v after calls at %v; want context.Canceled, no call after +2s", i, err, w.calls)
				}
			}
		}
	})
}
