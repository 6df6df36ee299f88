package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

type unavailable struct{}

func (unavailable) Error() string       { return "503 service unavailable" }
func (unavailable) HTTPStatusCode() int { return 503 }

// chaosService is a simulated service for many resources: random latency,
// transient errors, throttles, calls that hang until cancelled, and
// resources that fail. Each resource draws from its own seeded generator,
// so a run is the same for a seed whatever the scheduling.
type chaosService struct {
	start time.Time
	mu    sync.Mutex
	rngs  map[string]*rand.Rand
	calls map[string]int
}

func (c *chaosService) op(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
	c.mu.Lock()
	r := c.rngs[in.Name]
	c.calls[in.Name]++
	latency := time.Duration(r.IntN(2000)) * time.Millisecond
	roll := r.IntN(100)
	c.mu.Unlock()
	if roll < 1 { // hangs until its context ends
		<-ctx.Done()
		return nil, ctx.Err()
	}
	select {
	case <-time.After(latency):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var i int
	fmt.Sscan(in.Name, &i)
	switch {
	case roll < 4:
		return nil, unavailable{}
	case roll < 7:
		return nil, throttled{}
	case i%10 == 7 && time.Since(c.start) > time.Minute:
		return status("failed"), nil
	case time.Since(c.start) > time.Duration(i%300)*time.Second:
		return status("success"), nil
	}
	return status("creating"), nil
}

// TestChaos: 10,000 waiters against the chaos service in virtual time.
// Every run ends by its deadline with an error of a known kind, and every
// attempt is delivered exactly once, in order.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 runs")
	}
	clocktest.Run(t, func(t *testing.T) {
		const n, maxWait = 10_000, 4 * time.Minute
		svc := &chaosService{start: time.Now(), rngs: map[string]*rand.Rand{}, calls: map[string]int{}}
		for i := range n {
			svc.rngs[fmt.Sprint(i)] = rand.New(rand.NewPCG(42, uint64(i)))
		}
		w := mustNew(t, thingExists, svc.op, waiter.WithAttemptTimeout(30*time.Second), waiter.WithDelays(time.Second, 30*time.Second))
		kinds := map[string]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprint(i)
				start := time.Now()
				r := w.Start(t.Context(), GetThingInput{name}, maxWait)
				events := 0
				for a := range r.Events() {
					if events++; a.Checkpoint.Attempts != events {
						t.Errorf("run %d: event %d is attempt %d", i, events, a.Checkpoint.Attempts)
					}
				}
				_, err := r.Result()
				if elapsed := time.Since(start); elapsed > maxWait+5*time.Millisecond {
					t.Errorf("run %d ended after %v, past its %v deadline", i, elapsed, maxWait)
				}
				kind := "success"
				var we *waiter.Error
				switch {
				case err == nil:
				case !errors.As(err, &we):
					t.Errorf("run %d: error %v is not a *waiter.Error", i, err)
				case errors.Is(err, waiter.ErrTimeout):
					kind = "timeout"
				case errors.Is(err, waiter.ErrFailure) && we.Acceptor == 0:
					kind = "failed resource"
				case errors.Is(err, waiter.ErrFailure) && errors.Is(err, retry.ErrMaxAttempts):
					kind = "failure (transient errors in a row)"
				default:
					t.Errorf("run %d: unexpected error %v", i, err)
				}
				mu.Lock()
				kinds[kind]++
				mu.Unlock()
				svc.mu.Lock()
				calls := svc.calls[name]
				svc.mu.Unlock()
				if calls != events || (we != nil && we.Attempts != calls) {
					t.Errorf("run %d: %d calls, %d events, error says %v attempts", i, calls, events, we)
				}
			}()
		}
		wg.Wait()
		t.Logf("outcomes: %v", kinds)
		if kinds["success"] == 0 || kinds["failed resource"] == 0 || kinds["timeout"] == 0 {
			t.Errorf("the chaos did not reach every outcome: %v", kinds)
		}
	})
}
