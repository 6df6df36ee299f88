package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	avast "github.com/avast/retry-go/v4"
	cenkalti "github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/retry"
)

// unavailable is a 503, retryable for every library compared.
type unavailable struct{}

func (unavailable) Error() string       { return "503 service unavailable" }
func (unavailable) HTTPStatusCode() int { return 503 }

var errUnavailable error = unavailable{}

var sinkInt int

// failing returns an operation that fails 10 times, then succeeds, over and
// over.
func failing() func() (int, error) {
	n := 0
	return func() (int, error) {
		if n++; n%11 != 0 {
			return 0, errUnavailable
		}
		return n, nil
	}
}

// BenchmarkRetryLoop compares the overhead of a retry loop around an
// operation that fails 10 times then succeeds, with zero delay: ns/op and
// allocs/op are per call of 11 attempts. Each library is configured for 11
// attempts and no delay; the hand-written loop arms one timer per retry.
func BenchmarkRetryLoop(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, call func(op func() (int, error)) (int, error)) {
		op := failing()
		b.ReportAllocs()
		for b.Loop() {
			v, err := call(op)
			if err != nil {
				b.Fatal(err)
			}
			sinkInt = v
		}
	}
	b.Run("impl=waitable", func(b *testing.B) {
		s, err := retry.NewStandard(retry.WithMaxAttempts(11), retry.WithBackoff(backoff.Immediate()), retry.WithCosts(0, 0, 0))
		if err != nil {
			b.Fatal(err)
		}
		run(b, func(op func() (int, error)) (int, error) {
			return retry.Do(ctx, s, func(context.Context) (int, error) { return op() })
		})
	})
	b.Run("impl=cenkalti-backoff-v5", func(b *testing.B) {
		run(b, func(op func() (int, error)) (int, error) {
			return cenkalti.Retry(ctx, op, cenkalti.WithBackOff(&cenkalti.ZeroBackOff{}), cenkalti.WithMaxTries(11))
		})
	})
	b.Run("impl=failsafe-go", func(b *testing.B) {
		policy := retrypolicy.NewBuilder[int]().WithMaxAttempts(11).Build()
		exec := failsafe.With[int](policy)
		run(b, func(op func() (int, error)) (int, error) { return exec.Get(op) })
	})
	b.Run("impl=avast-retry-go", func(b *testing.B) {
		run(b, func(op func() (int, error)) (int, error) {
			return avast.DoWithData(op, avast.Attempts(11), avast.Delay(0), avast.DelayType(avast.FixedDelay), avast.LastErrorOnly(true), avast.Context(ctx))
		})
	})
	b.Run("impl=hand-written", func(b *testing.B) {
		run(b, func(op func() (int, error)) (int, error) { return handWritten(ctx, op) })
	})
}

// handWritten is the loop people write: call, and on error wait on a timer
// before the next call.
func handWritten(ctx context.Context, op func() (int, error)) (int, error) {
	for attempt := 1; ; attempt++ {
		v, err := op()
		if err == nil || attempt == 11 {
			return v, err
		}
		t := time.NewTimer(0)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		}
	}
}

// TestRetryLoopsAgree: every loop compared makes 11 attempts and succeeds.
func TestRetryLoopsAgree(t *testing.T) {
	ctx := context.Background()
	s, _ := retry.NewStandard(retry.WithMaxAttempts(11), retry.WithBackoff(backoff.Immediate()), retry.WithCosts(0, 0, 0))
	policy := retrypolicy.NewBuilder[int]().WithMaxAttempts(11).Build()
	for name, call := range map[string]func(op func() (int, error)) (int, error){
		"waitable": func(op func() (int, error)) (int, error) {
			return retry.Do(ctx, s, func(context.Context) (int, error) { return op() })
		},
		"cenkalti": func(op func() (int, error)) (int, error) {
			return cenkalti.Retry(ctx, op, cenkalti.WithBackOff(&cenkalti.ZeroBackOff{}), cenkalti.WithMaxTries(11))
		},
		"failsafe": func(op func() (int, error)) (int, error) { return failsafe.With[int](policy).Get(op) },
		"avast": func(op func() (int, error)) (int, error) {
			return avast.DoWithData(op, avast.Attempts(11), avast.Delay(0), avast.DelayType(avast.FixedDelay), avast.LastErrorOnly(true), avast.Context(ctx))
		},
		"hand-written": func(op func() (int, error)) (int, error) { return handWritten(ctx, op) },
	} {
		calls := 0
		v, err := call(func() (int, error) {
			calls++
			if calls < 11 {
				return 0, errUnavailable
			}
			return 1, nil
		})
		if v != 1 || err != nil || calls != 11 {
			t.Errorf("%s: %v, %v after %d calls; want success after 11", name, v, err, calls)
		}
		if errors.Is(err, errUnavailable) {
			t.Errorf("%s returned the operation's error on success", name)
		}
	}
}
