package bench

import (
	"context"
	"time"

	avast "github.com/avast/retry-go/v4"
	cenkalti "github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	sethvargo "github.com/sethvargo/go-retry"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/retry"
)

// unavailable is a 503, retryable for every library compared.
type unavailable struct{}

func (unavailable) Error() string       { return "503 service unavailable" }
func (unavailable) HTTPStatusCode() int { return 503 }

var errUnavailable error = unavailable{}

// failing returns an operation that fails 10 times, then succeeds, over and
// over: one retried call makes 11 attempts.
func failing() func() (int, error) {
	n := 0
	return func() (int, error) {
		if n++; n%11 != 0 {
			return 0, errUnavailable
		}
		return n, nil
	}
}

// RetryLoop is a retry library's call: op retried with the given delay
// between attempts, 11 attempts at most.
type RetryLoop func(ctx context.Context, delay time.Duration, op func() (int, error)) (int, error)

// RetryLoops are the loops row 2 compares, each configured for 11 attempts
// and a fixed delay without jitter, the way its documentation shows.
var RetryLoops = []struct {
	Name string
	New  func(delay time.Duration) RetryLoop
}{
	{"waitable", waitableRetry},
	{"cenkalti/backoff v5", func(time.Duration) RetryLoop { return cenkaltiRetry }},
	{"failsafe-go", failsafeRetry},
	{"avast/retry-go v4", func(time.Duration) RetryLoop { return avastRetry }},
	{"sethvargo/go-retry", func(time.Duration) RetryLoop { return sethvargoRetry }},
	{"hand-written (one timer)", func(time.Duration) RetryLoop { return HandRetry }},
}

func waitableRetry(delay time.Duration) RetryLoop {
	policy := backoff.Immediate()
	if delay > 0 {
		policy = backoff.FixedWithoutJitter(delay)
	}
	s, err := retry.NewStandard(retry.WithMaxAttempts(11), retry.WithBackoff(policy), retry.WithThrottleBackoff(policy), retry.WithCosts(0, 0, 0))
	if err != nil {
		panic(err)
	}
	return func(ctx context.Context, _ time.Duration, op func() (int, error)) (int, error) {
		return retry.Do(ctx, s, func(context.Context) (int, error) { return op() })
	}
}

func cenkaltiRetry(ctx context.Context, delay time.Duration, op func() (int, error)) (int, error) {
	var b cenkalti.BackOff = &cenkalti.ZeroBackOff{}
	if delay > 0 {
		b = cenkalti.NewConstantBackOff(delay)
	}
	return cenkalti.Retry(ctx, op, cenkalti.WithBackOff(b), cenkalti.WithMaxTries(11))
}

func failsafeRetry(delay time.Duration) RetryLoop {
	b := retrypolicy.NewBuilder[int]().WithMaxAttempts(11)
	if delay > 0 {
		b = b.WithDelay(delay)
	}
	exec := failsafe.With[int](b.Build())
	return func(ctx context.Context, _ time.Duration, op func() (int, error)) (int, error) {
		return exec.WithContext(ctx).Get(op)
	}
}

func avastRetry(ctx context.Context, delay time.Duration, op func() (int, error)) (int, error) {
	return avast.DoWithData(op, avast.Attempts(11), avast.Delay(delay), avast.DelayType(avast.FixedDelay),
		avast.LastErrorOnly(true), avast.Context(ctx))
}

func sethvargoRetry(ctx context.Context, delay time.Duration, op func() (int, error)) (int, error) {
	b := sethvargo.WithMaxRetries(10, sethvargo.BackoffFunc(func() (time.Duration, bool) { return delay, false }))
	return sethvargo.DoValue(ctx, b, func(context.Context) (int, error) {
		v, err := op()
		if err != nil {
			return 0, sethvargo.RetryableError(err)
		}
		return v, nil
	})
}

// HandRetry is the loop a competent Go programmer writes: call, and on
// error wait on one timer, made once and reset, before the next call; no
// timer at all when the delay is zero.
func HandRetry(ctx context.Context, delay time.Duration, op func() (int, error)) (int, error) {
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for attempt := 1; ; attempt++ {
		v, err := op()
		if err == nil || attempt == 11 {
			return v, err
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if delay <= 0 {
			continue
		}
		if t == nil {
			t = time.NewTimer(delay)
		} else {
			t.Reset(delay)
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// retrySides returns row 2's sides for one delay: each op is one call of
// 11 attempts.
func retrySides(delay time.Duration) []Side {
	var sides []Side
	for _, l := range RetryLoops {
		loop := l.New(delay)
		sides = append(sides, Side{Name: l.Name, Op: func(n int) {
			op := failing()
			ctx := context.Background()
			for range n {
				if _, err := loop(ctx, delay, op); err != nil {
					panic(l.Name + ": " + err.Error())
				}
			}
		}})
	}
	return sides
}
