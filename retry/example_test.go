package retry_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
)

type unavailable struct{}

func (unavailable) Error() string       { return "service unavailable" }
func (unavailable) HTTPStatusCode() int { return 503 }

// Retry a call that fails twice with a 503. The mock clock only makes the
// example instant; in production leave WithClock out.
func ExampleDo() {
	m := clocktest.NewMock()
	start := m.Now()
	s, err := retry.NewStandard(retry.WithClock(m), retry.WithJitter(backoff.High))
	if err != nil {
		fmt.Println(err)
		return
	}
	go func() { m.Step(); m.Step() }() // move time through the two backoffs
	calls := 0
	out, err := retry.Do(context.Background(), s, func(ctx context.Context) (string, error) {
		calls++
		fmt.Printf("attempt %d at +%v\n", calls, m.Since(start))
		if calls < 3 {
			return "", unavailable{}
		}
		return "ok", nil
	})
	fmt.Println(out, err, s.Bucket("").Available())
	// Output:
	// attempt 1 at +0s
	// attempt 2 at +50ms
	// attempt 3 at +150ms
	// ok <nil> 486
}

// A refused retry says why, and unwraps to the operation's error.
func ExampleError() {
	s, _ := retry.NewStandard(retry.WithMaxAttempts(1))
	_, err := retry.Do(context.Background(), s, func(ctx context.Context) (int, error) {
		return 0, unavailable{}
	})
	var re *retry.Error
	fmt.Println(errors.As(err, &re), re.Attempts, errors.Is(err, retry.ErrMaxAttempts), errors.Is(err, unavailable{}))
	fmt.Println(err)
	// Output:
	// true 1 true true
	// retry: max attempts reached after 1 attempt: service unavailable
}

type slowDown struct{}

func (slowDown) Error() string     { return "slow down" }
func (slowDown) ErrorCode() string { return "ThrottlingException" }

// The adaptive strategy turns its send-rate limit on at the first throttle
// and cuts the rate by 30%.
func ExampleNewAdaptive() {
	a, _ := retry.NewAdaptive(retry.WithClock(clocktest.NewMock()))
	fmt.Println("limited:", a.Rate().Enabled)
	tok, _ := a.AcquireInitialToken(context.Background(), "")
	next, err := a.RefreshToken(context.Background(), tok, slowDown{})
	fmt.Println("limited:", a.Rate().Enabled, "retry:", err == nil, next.RetryCount())
	// Output:
	// limited: false
	// limited: true retry: true 1
}

// An error that says nothing of whether a retry is safe (a plain error,
// from a call the strategy knows nothing about) is not retried, unless the
// call is marked idempotent: then retrying it is safe.
func ExampleWithIdempotent() {
	s, _ := retry.NewStandard(retry.WithBackoff(backoff.Immediate()))
	flaky := func() func(context.Context) (string, error) {
		calls := 0
		return func(context.Context) (string, error) {
			if calls++; calls < 3 {
				return "", errors.New("connection hiccup")
			}
			return "ok", nil
		}
	}
	_, err := retry.Do(context.Background(), s, flaky())
	fmt.Println(err)
	out, err := retry.Do(retry.WithIdempotent(context.Background()), s, flaky())
	fmt.Println(out, err)
	// Output:
	// retry: error not retryable after 1 attempt (the error says nothing of whether a retry is safe, and the call is not marked idempotent (retry.WithIdempotent(ctx) allows retrying it)): connection hiccup
	// ok <nil>
}
