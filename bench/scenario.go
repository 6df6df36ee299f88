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
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// The fan-out scenario: n resources become ready at random times over ten
// minutes; one service answers their polls and throttles above 50 requests
// a second. Each client waits for all of them, in virtual time
// (testing/synctest), with jitter seeded per resource:
//
//   - "independent": what the AWS SDKs do. One waiter per resource on its
//     own schedule (the Smithy algorithm, reserve = MinDelay, as smithy-go
//     computes it), each call retried by the SDK's standard retryer (3
//     attempts, throttle backoff from 1s); a call still throttled after
//     that ends the waiter, since no acceptor matches the error. It is told
//     nothing about the service's limit.
//   - "waitable": one waiter per resource in a waiter.Group, sharing one
//     poll rate limit of 50/s (the service's limit, which it is told), and
//     throttles retried as transient on the waiter's schedule.
//   - "waitable + events": the same, but nine resources in ten also
//     announce their readiness by an event that pokes their wait, on a
//     slower schedule (see scenario_events.go).
//
// A resource is detected when the service first answers "ready" for it:
// the service records the time, so that no client's bookkeeping can skew
// it. A resource never answered "ready" (its waiter failed, or the wait
// ended first) counts as never detected.

const (
	scenarioWindow  = 10 * time.Minute
	scenarioLimit   = 50 // requests per second the service allows
	scenarioMaxWait = 30 * time.Minute
	scenarioMin     = 5 * time.Second
	scenarioMax     = 120 * time.Second
)

// ScenarioStats is how one client did.
type ScenarioStats struct {
	Client, Told                            string
	N, Calls, Polled, Throttled, Undetected int
	P50, P99                                time.Duration // from ready to detected; never: -1
}

func (s ScenarioStats) String() string {
	return fmt.Sprintf("%s: n=%d calls=%d polled=%d throttled=%d undetected=%d p50=%s p99=%s", s.Client, s.N, s.Calls, s.Polled, s.Throttled, s.Undetected, lagFmt(s.P50), lagFmt(s.P99))
}

func lagFmt(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return d.Round(100 * time.Millisecond).String()
}

type throttlingException struct{}

func (throttlingException) Error() string     { return "ThrottlingException: Rate exceeded" }
func (throttlingException) ErrorCode() string { return "ThrottlingException" }

// readyTimes draws when each of n resources becomes ready.
func readyTimes(n int, seed uint64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(r.Int64N(int64(scenarioWindow)))
	}
	return out
}

// service answers polls for resources ready at readyAt[i] and records
// when it first answers "ready" to each.
type service struct {
	start       time.Time
	readyAt     []time.Duration
	limit       *rate.Limiter
	mu          sync.Mutex
	perResource []int
	detected    []time.Duration // -1: not yet
	calls       int
	polled      int // resources asked about, over all calls
	throttled   int
}

func newService(readyAt []time.Duration) *service {
	s := &service{start: time.Now(), readyAt: readyAt, limit: rate.NewLimiter(scenarioLimit, scenarioLimit),
		perResource: make([]int, len(readyAt)), detected: make([]time.Duration, len(readyAt))}
	for i := range s.detected {
		s.detected[i] = -1
	}
	return s
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
	s.polled++
	if !s.limit.AllowN(time.Now(), 1) {
		s.throttled++
		return status{}, throttlingException{}
	}
	now := time.Since(s.start)
	if now < s.readyAt[i] {
		return status{"pending"}, nil
	}
	if s.detected[i] < 0 {
		s.detected[i] = now
	}
	return status{"ready"}, nil
}

// describeMany answers for many resources in one call, as EC2's
// DescribeInstances does: one call against the limit, a few milliseconds.
func (s *service) describeMany(ctx context.Context, ids []int) (map[int]status, error) {
	s.mu.Lock()
	s.perResource[ids[0]]++
	n := s.perResource[ids[0]]
	s.mu.Unlock()
	time.Sleep(time.Millisecond + time.Duration((ids[0]*7919+n*104729)%99991)*10*time.Nanosecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.polled += len(ids)
	if !s.limit.AllowN(time.Now(), 1) {
		s.throttled++
		return nil, throttlingException{}
	}
	now := time.Since(s.start)
	out := make(map[int]status, len(ids))
	for _, i := range ids {
		if now < s.readyAt[i] {
			out[i] = status{"pending"}
			continue
		}
		if s.detected[i] < 0 {
			s.detected[i] = now
		}
		out[i] = status{"ready"}
	}
	return out, nil
}

// stats summarizes the service's record for a client.
func (s *service) stats(client, told string) ScenarioStats {
	st := ScenarioStats{Client: client, Told: told, N: len(s.readyAt), Calls: s.calls, Polled: s.polled, Throttled: s.throttled}
	lags := make([]time.Duration, len(s.readyAt))
	for i, d := range s.detected {
		if d < 0 {
			st.Undetected++
			lags[i] = time.Duration(1<<63 - 1)
			continue
		}
		lags[i] = d - s.readyAt[i]
	}
	st.P50, st.P99 = percentiles(lags)
	return st
}

// percentiles returns the 50th and 99th percentiles, -1 for "never".
func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	slices.Sort(d)
	never := func(x time.Duration) time.Duration {
		if x == 1<<63-1 {
			return -1
		}
		return x
	}
	return never(d[len(d)/2]), never(d[len(d)*99/100])
}

// RunScenario runs one client ("independent", "waitable", "waitable +
// events", "waitable batch 10" or "waitable batch 100") on n resources
// and returns its statistics.
func RunScenario(t *testing.T, client string, n int, seed uint64) ScenarioStats {
	var st ScenarioStats
	synctest.Test(t, func(t *testing.T) {
		svc := newService(readyTimes(n, seed))
		switch client {
		case "independent":
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					time.Sleep(time.Duration(i) * 10 * time.Microsecond) // staggered starts
					sdkStyleWait(t.Context(), svc, i, seed)
				})
			}
			wg.Wait()
			st = svc.stats(client, "nothing: each waiter retries throttles in its own SDK retryer")
		case "waitable":
			shared := rate.NewLimiter(scenarioLimit, 1)
			g := waiter.NewGroup(t.Context(), waiter.GroupOptions{})
			for i := range n {
				w, err := waiter.New(readyDef, svc.describe, waiter.WithPollRateLimit(shared), waiter.WithTelemetry(telemetry.Settings{Off: true}),
					waiter.WithDelays(scenarioMin, scenarioMax), waiter.WithJitter(backoff.Seeded(seed+uint64(i))))
				if err != nil {
					t.Fatal(err)
				}
				waiter.Go(g, "", w, i, scenarioMaxWait)
				time.Sleep(10 * time.Microsecond) // staggered starts
			}
			g.Wait()
			st = svc.stats(client, "the service's limit: one shared 50/s poll rate limit")
		case "waitable + events":
			runEvented(t, svc, seed)
			st = svc.stats(client, eventsTold)
		case "waitable batch 10", "waitable batch 100":
			size := 10
			if client == "waitable batch 100" {
				size = 100
			}
			b, err := waiter.NewBatch(readyDef, svc.describeMany, waiter.BatchOptions[int, status]{Size: size},
				waiter.WithPollRateLimit(rate.NewLimiter(scenarioLimit, 1)),
				waiter.WithTelemetry(telemetry.Settings{Off: true}), waiter.WithDelays(time.Second, time.Second))
			if err != nil {
				t.Fatal(err)
			}
			runs := make([]*waiter.Run[status], n)
			for i := range n {
				runs[i] = b.Add(t.Context(), i, scenarioMaxWait)
				time.Sleep(10 * time.Microsecond) // staggered starts
			}
			for _, r := range runs {
				r.Result()
			}
			st = svc.stats(client, fmt.Sprintf("the service's limit: one shared 50/s call rate limit, %d resources a call", size))
		default:
			t.Fatalf("unknown client %q", client)
		}
	})
	return st
}

// sdkStyleWait is an AWS SDK waiter: the Smithy schedule with reserve =
// MinDelay, and each call through the standard retryer. It reports
// whether the resource was seen ready.
func sdkStyleWait(ctx context.Context, svc *service, i int, seed uint64) bool {
	sched := backoff.WaiterSchedule{MinDelay: scenarioMin, MaxDelay: scenarioMax, Jitter: backoff.Seeded(seed + uint64(i))}
	retryer, _ := retry.NewStandard(retry.WithTelemetry(telemetry.Settings{Off: true}),
		retry.WithJitter(backoff.Seeded(seed+uint64(i)+1<<32)))
	start := time.Now()
	for attempt := 1; ; attempt++ {
		out, err := retry.Do(ctx, retryer, func(ctx context.Context) (status, error) { return svc.describe(ctx, i) })
		if err != nil {
			return false // unmatched error: the waiter fails
		}
		if out.State == "ready" {
			return true
		}
		d := sched.Delay(attempt, scenarioMaxWait-time.Since(start), scenarioMin)
		if d == 0 {
			return false
		}
		time.Sleep(d)
	}
}

// LowerBound is the best any poller that asks about perCall resources
// per call can do in this scenario: calls at exactly the service's limit,
// round robin over the resources not yet seen ready. It returns the
// detection lag percentiles of that schedule (its call count is that of a
// poller that never rests, not a target).
func LowerBound(n, perCall int, seed uint64) ScenarioStats {
	readyAt := readyTimes(n, seed)
	queue := make([]int, n)
	for i := range queue {
		queue[i] = i
	}
	st := ScenarioStats{Client: fmt.Sprintf("lower bound, %d a call", perCall), Told: "round robin at exactly 50 calls/s", N: n}
	lags := make([]time.Duration, 0, n)
	for k := 0; len(queue) > 0; k++ {
		now := time.Duration(k) * time.Second / scenarioLimit
		st.Calls++
		st.Polled += min(perCall, len(queue))
		for range min(perCall, len(queue)) {
			i := queue[0]
			queue = queue[1:]
			if now >= readyAt[i] {
				lags = append(lags, now-readyAt[i])
				continue
			}
			queue = append(queue, i)
		}
	}
	st.P50, st.P99 = percentiles(lags)
	return st
}
