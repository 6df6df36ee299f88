package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

// The fan-out scenario: n resources become ready at random times over ten
// minutes; one service answers their polls and throttles above 50 requests
// a second. Two clients wait for all of them:
//
//   - "independent": what the AWS SDKs do. One waiter per resource on its
//     own schedule (the Smithy algorithm, reserve = MinDelay, as smithy-go
//     computes it), each call retried by the SDK's standard retryer (3
//     attempts, throttle backoff from 1s); a call still throttled after
//     that ends the waiter, since no acceptor matches the error.
//   - "waitable": waiter.Group over the same resources, with one poll rate
//     limit of 50/s shared by all, and throttles retried as transient on
//     the waiter's schedule.
//
// Both use jitter seeded per resource, in virtual time (testing/synctest).

type scenarioStats struct {
	calls, throttled, failed int
	p50, p99                 time.Duration // from ready to detected
}

func (s scenarioStats) String() string {
	return fmt.Sprintf("calls=%d throttled=%d failed=%d p50=%v p99=%v", s.calls, s.throttled, s.failed, s.p50.Round(time.Second), s.p99.Round(time.Second))
}

type throttlingException struct{}

func (throttlingException) Error() string     { return "ThrottlingException: Rate exceeded" }
func (throttlingException) ErrorCode() string { return "ThrottlingException" }

// service answers polls for resources ready at readyAt[i].
type service struct {
	start       time.Time
	readyAt     []time.Duration
	limit       *rate.Limiter
	mu          sync.Mutex
	perResource map[int]int
	calls       int
	thrott      int
}

func (s *service) describe(ctx context.Context, i int) (status, error) {
	// Each call takes its own few milliseconds, so that no two calls meet
	// the service at the same virtual instant: which of two simultaneous
	// calls is throttled would otherwise depend on goroutine scheduling.
	s.mu.Lock()
	s.perResource[i]++
	n := s.perResource[i]
	s.mu.Unlock()
	time.Sleep(time.Millisecond + time.Duration((i*7919+n*104729)%99991)*10*time.Nanosecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if !s.limit.AllowN(time.Now(), 1) {
		s.thrott++
		return status{}, throttlingException{}
	}
	if time.Since(s.start) >= s.readyAt[i] {
		return status{"ready"}, nil
	}
	return status{"pending"}, nil
}

const (
	scenarioMaxWait = 30 * time.Minute
	scenarioMin     = 5 * time.Second
	scenarioMax     = 120 * time.Second
)

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*99/100]
}

// runScenario runs one client ("independent" or "waitable") and returns
// its statistics.
func runScenario(t *testing.T, client string, n int, seed uint64) scenarioStats {
	var st scenarioStats
	synctest.Test(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(seed, 1))
		svc := &service{start: time.Now(), limit: rate.NewLimiter(50, 50), perResource: map[int]int{}}
		for range n {
			svc.readyAt = append(svc.readyAt, time.Duration(r.Int64N(int64(10*time.Minute))))
		}
		detected := make([]time.Duration, n)
		failed := make([]bool, n)
		var wg sync.WaitGroup
		switch client {
		case "independent":
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(time.Duration(i) * 10 * time.Microsecond) // staggered starts
					d, ok := sdkStyleWait(t.Context(), svc, i, seed)
					detected[i], failed[i] = d, !ok
				}()
			}
		case "waitable":
			shared := rate.NewLimiter(50, 1)
			g := waiter.NewGroup(t.Context())
			for i := range n {
				w, err := waiter.New(readyDef, svc.describe, waiter.WithPollRateLimit(shared), waiter.WithoutTelemetry(),
					waiter.WithDelays(scenarioMin, scenarioMax), waiter.WithJitter(backoff.Seeded(seed+uint64(i))))
				if err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(time.Duration(i) * 10 * time.Microsecond) // staggered starts
					o := waiter.Go(g, w, i, scenarioMaxWait)
					g.Wait()
					detected[i], failed[i] = time.Since(svc.start), o.Err != nil
				}()
			}
		}
		wg.Wait()
		var lag []time.Duration
		for i := range n {
			if failed[i] {
				st.failed++
				continue
			}
			lag = append(lag, detected[i]-svc.readyAt[i])
		}
		st.p50, st.p99 = percentiles(lag)
		st.calls, st.throttled = svc.calls, svc.thrott
	})
	return st
}

// sdkStyleWait is an AWS SDK waiter: the Smithy schedule with reserve =
// MinDelay, and each call through the standard retryer.
func sdkStyleWait(ctx context.Context, svc *service, i int, seed uint64) (time.Duration, bool) {
	sched := backoff.WaiterSchedule{MinDelay: scenarioMin, MaxDelay: scenarioMax, Jitter: backoff.Seeded(seed + uint64(i))}
	retryer, _ := retry.NewStandard(retry.WithoutTelemetry(), retry.WithJitter(backoff.Seeded(seed+uint64(i)+1<<32)))
	start := time.Now()
	for attempt := 1; ; attempt++ {
		out, err := retry.Do(ctx, retryer, func(ctx context.Context) (status, error) { return svc.describe(ctx, i) })
		if err != nil {
			return 0, false // unmatched error: the waiter fails
		}
		if out.State == "ready" {
			return time.Since(svc.start), true
		}
		d := sched.Delay(attempt, scenarioMaxWait-time.Since(start), scenarioMin)
		if d == 0 {
			return 0, false
		}
		time.Sleep(d)
	}
}

// TestFanoutScenario runs both clients on the same resources and checks
// Waitable's advantage: fewer throttled calls and no waiter failed.
func TestFanoutScenario(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 1000
	}
	ind := runScenario(t, "independent", n, 7)
	wt := runScenario(t, "waitable", n, 7)
	t.Logf("scenario n=%d independent %v", n, ind)
	t.Logf("scenario n=%d waitable %v", n, wt)
	if wt.failed != 0 || wt.throttled >= ind.throttled {
		t.Errorf("waitable: %v; independent: %v", wt, ind)
	}
}

// TestFanoutScenarioDeterministic: the same seed gives the same numbers.
func TestFanoutScenarioDeterministic(t *testing.T) {
	for _, client := range []string{"independent", "waitable"} {
		a, b := runScenario(t, client, 500, 3), runScenario(t, client, 500, 3)
		if a != b {
			t.Errorf("%s: %v, then %v", client, a, b)
		}
	}
}
