package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// TestDo: the loop waits each token's delay on the clock, exactly, under
// a context that can end and under one that never does (whose wait is a
// plain receive on the timer).
func TestDo(t *testing.T) {
	for name, ctxOf := range map[string]func(t *testing.T) context.Context{
		"cancellable":  func(t *testing.T) context.Context { return t.Context() },
		"never-ending": func(*testing.T) context.Context { return context.Background() },
	} {
		t.Run(name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				s, _ := retry.NewStandard(retry.WithJitter(backoff.High), retry.WithMaxAttempts(4), retry.WithClock(clocktest.Clock()))
				start := time.Now()
				var at []time.Duration
				v, err := retry.Do(ctxOf(t), s, func(ctx context.Context) (int, error) {
					at = append(at, time.Since(start))
					if len(at) < 4 {
						return 0, transient{}
					}
					return 42, nil
				})
				if v != 42 || err != nil {
					t.Fatalf("Do = %v, %v", v, err)
				}
				want := []time.Duration{0, 50 * ms, 150 * ms, 350 * ms}
				for i := range want {
					if at[i] != want[i] {
						t.Errorf("attempt %d at %v, want %v", i+1, at[i], want[i])
					}
				}
			})
		})
	}
}

func TestDoGivesUp(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		s, _ := retry.NewStandard(retry.WithClock(clocktest.Clock()))
		calls := 0
		_, err := retry.Do(t.Context(), s, func(ctx context.Context) (string, error) {
			calls++
			return "", transient{}
		})
		var re *retry.Error
		if !errors.As(err, &re) || !errors.Is(err, retry.ErrMaxAttempts) || !errors.Is(err, transient{}) || re.Attempts != 3 || calls != 3 {
			t.Fatalf("Do = %v (%+v), %d calls; want ErrMaxAttempts after 3 wrapping the 503", err, re, calls)
		}
		if got := err.Error(); got != "retry: max attempts reached after 3 attempts: 503 service unavailable" {
			t.Errorf("Error() = %q", got)
		}
		_, err = retry.Do(t.Context(), s, func(ctx context.Context) (string, error) { return "", fatal{} })
		if !errors.Is(err, retry.ErrNotRetryable) || !errors.Is(err, fatal{}) {
			t.Errorf("Do(fatal) = %v, want ErrNotRetryable wrapping it", err)
		}
	})
}

// TestDoCancelled: a context cancelled during a wait ends Do at once with
// the context's cause, still unwrapping to the last operation error.
func TestDoCancelled(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		s, _ := retry.NewStandard(retry.WithJitter(backoff.High), retry.WithClock(clocktest.Clock()),
			retry.WithThrottleBackoff(backoff.FixedWithoutJitter(time.Hour)), retry.WithMaxBackoff(time.Hour))
		cause := errors.New("shutting down")
		ctx, cancel := context.WithCancelCause(t.Context())
		done := make(chan error)
		start := time.Now()
		go func() {
			_, err := retry.Do(ctx, s, func(ctx context.Context) (int, error) { return 7, throttle{} })
			done <- err
		}()
		clocktest.Advance(time.Minute) // Do sleeps its hour
		cancel(cause)
		err := <-done
		if !errors.Is(err, cause) || !errors.Is(err, throttle{}) {
			t.Fatalf("Do after cancel = %v, want the cause, wrapping the throttle", err)
		}
		if got := time.Since(start); got != time.Minute {
			t.Errorf("Do returned at %v, want at the cancellation (1m)", got)
		}
	})
}

// TestDoZeroDelayArmsNoTimer: an immediate retry arms no timer at all.
func TestDoZeroDelayArmsNoTimer(t *testing.T) {
	m := clocktest.NewMock()
	s, _ := retry.NewStandard(retry.WithClock(m), retry.WithBackoff(backoff.Immediate()), retry.WithMaxAttempts(11), retry.WithCosts(0, 0, 0))
	calls := 0
	_, err := retry.Do(context.Background(), s, func(ctx context.Context) (int, error) {
		if calls++; calls <= 10 {
			return 0, transient{}
		}
		return 1, nil
	})
	if armed := len(m.Armings()); err != nil || calls != 11 || armed != 0 {
		t.Fatalf("Do = %v after %d calls, %d timers armed; want success after 11 calls and none", err, calls, armed)
	}
}

// noToken is a strategy that cannot give an initial token.
type noToken struct{ retry.Strategy }

func (noToken) AcquireInitialToken(context.Context, string) (retry.Token, error) {
	return nil, errors.New("no tokens")
}

func TestDoWithoutInitialToken(t *testing.T) {
	calls := 0
	_, err := retry.Do(context.Background(), noToken{}, func(ctx context.Context) (int, error) {
		calls++
		return 0, transient{}
	})
	if calls != 1 || !errors.Is(err, transient{}) {
		t.Errorf("Do without an initial token: %d calls, %v; want one attempt and its error", calls, err)
	}
}

// TestDoNeverUndercutsRetryAfter: a retry comes no sooner than the
// service's retry-after hint, however long it is.
func TestDoNeverUndercutsRetryAfter(t *testing.T) {
	for _, after := range []time.Duration{30 * time.Second, time.Hour} {
		clocktest.Run(t, func(t *testing.T) {
			s, _ := retry.NewStandard(retry.WithClock(clocktest.Clock()))
			start := time.Now()
			var at []time.Duration
			_, err := retry.Do(t.Context(), s, func(ctx context.Context) (int, error) {
				at = append(at, time.Since(start))
				if len(at) == 1 {
					return 0, throttle{after: after}
				}
				return 1, nil
			})
			if err != nil || len(at) != 2 || at[1] != after {
				t.Fatalf("Do after a retry-after of %v: %v, calls at %v; want the retry at %v", after, err, at, after)
			}
		})
	}
}

// TestDoRetryAfterPastDeadline: a hint that ends after the context's
// deadline ends Do at once with an error that says so, and no call
// follows.
func TestDoRetryAfterPastDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		s, _ := retry.NewStandard(retry.WithClock(clocktest.Clock()))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		calls := 0
		_, err := retry.Do(ctx, s, func(ctx context.Context) (int, error) {
			calls++
			return 0, throttle{after: time.Hour}
		})
		var re *retry.Error
		var th throttle
		if !errors.As(err, &re) || !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &th) || re.Delay != time.Hour {
			t.Fatalf("Do = %v (%+v); want DeadlineExceeded wrapping the throttle, Delay 1h", err, re)
		}
		if calls != 1 || time.Since(start) != 0 {
			t.Errorf("%d calls, returned after %v; want 1 call, at once", calls, time.Since(start))
		}
		if want := "retry: context deadline exceeded after 1 attempt (the service said to retry after 1h0m0s, past the context's deadline): throttled"; err.Error() != want {
			t.Errorf("Error() = %q\nwant      %q", err.Error(), want)
		}
	})
}

// TestRefusalSaysTheDelay: a refusal for the attempts or the quota says
// what the retry would have waited, retry-after included.
func TestRefusalSaysTheDelay(t *testing.T) {
	ctx := context.Background()
	s, _ := retry.NewStandard(retry.WithJitter(backoff.High), retry.WithMaxAttempts(1))
	tok, _ := s.AcquireInitialToken(ctx, "")
	_, err := s.RefreshToken(ctx, tok, throttle{after: 7 * time.Second})
	var re *retry.Error
	if !errors.As(err, &re) || !errors.Is(err, retry.ErrMaxAttempts) || re.Delay != 7*time.Second || re.Backoff != 0 {
		t.Errorf("RefreshToken past the attempts = %v (%+v); want ErrMaxAttempts with Delay 7s and no Backoff", err, re)
	}
	s, _ = retry.NewStandard(retry.WithJitter(backoff.High), retry.WithTokenBucket(retry.NewTokenBucket(1)))
	tok, _ = s.AcquireInitialToken(ctx, "")
	_, err = s.RefreshToken(ctx, tok, transient{})
	if !errors.As(err, &re) || !errors.Is(err, retry.ErrQuotaExceeded) || re.Delay != 50*ms || re.Backoff != 0 {
		t.Errorf("RefreshToken with an empty quota = %v (%+v); want ErrQuotaExceeded with Delay 50ms and no Backoff", err, re)
	}
}

// counting is a strategy of the caller's own that hands each call to a
// Standard and counts them.
type counting struct {
	*retry.Standard
	acquired, refreshed, succeeded int
}

func (c *counting) AcquireInitialToken(ctx context.Context, scope string) (retry.Token, error) {
	c.acquired++
	return c.Standard.AcquireInitialToken(ctx, scope)
}

func (c *counting) RefreshToken(ctx context.Context, tok retry.Token, err error) (retry.Token, error) {
	c.refreshed++
	return c.Standard.RefreshToken(ctx, tok, err)
}

func (c *counting) RecordSuccess(tok retry.Token) {
	c.succeeded++
	c.Standard.RecordSuccess(tok)
}

// TestDoOtherStrategies: Do drives a strategy that is not a *Standard
// through its methods, and a Standard wrapped that way pays and refunds
// its bucket, waits and gives up exactly as the Standard itself does.
func TestDoOtherStrategies(t *testing.T) {
	type result struct {
		at        []time.Duration
		available int
		err       string
	}
	run := func(t *testing.T, wrap bool, failures int) result {
		var r result
		clocktest.Run(t, func(t *testing.T) {
			std, _ := retry.NewStandard(retry.WithJitter(backoff.High), retry.WithMaxAttempts(3))
			var s retry.Strategy = std
			c := &counting{Standard: std}
			if wrap {
				s = c
			}
			start := time.Now()
			_, err := retry.Do(context.Background(), s, func(ctx context.Context) (int, error) {
				r.at = append(r.at, time.Since(start))
				if len(r.at) <= failures {
					return 0, transient{}
				}
				return 1, nil
			})
			if err != nil {
				r.err = err.Error()
			}
			r.available = std.Bucket("").Available()
			if wrap {
				wantSucceeded := 0
				if err == nil {
					wantSucceeded = 1
				}
				if c.acquired != 1 || c.refreshed != min(failures, 3) || c.succeeded != wantSucceeded {
					t.Errorf("%d failures: acquired %d, refreshed %d, succeeded %d; want 1, %d, %d",
						failures, c.acquired, c.refreshed, c.succeeded, min(failures, 3), wantSucceeded)
				}
			}
		})
		return r
	}
	for _, failures := range []int{0, 2, 5} {
		direct, wrapped := run(t, false, failures), run(t, true, failures)
		if fmt.Sprint(direct) != fmt.Sprint(wrapped) {
			t.Errorf("%d failures: a Standard gives %v, the same Standard wrapped %v", failures, direct, wrapped)
		}
	}
}

// TestDoEmbeddedStandard: a strategy of one's own that embeds a *Standard
// waits on the Standard's clock and is observed as its WithTelemetry says.
func TestDoEmbeddedStandard(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		m := clocktest.NewMock()
		rec := &recorder{}
		std, _ := retry.NewStandard(retry.WithClock(m), retry.WithJitter(backoff.High),
			retry.WithTelemetry(telemetry.Settings{Off: true, Extra: []telemetry.Observer{rec}}))
		done := make(chan error, 1)
		calls := 0
		go func() {
			_, err := retry.Do(context.Background(), &counting{Standard: std}, func(context.Context) (int, error) {
				if calls++; calls == 1 {
					return 0, transient{}
				}
				return 1, nil
			})
			done <- err
		}()
		clocktest.Settle()
		if armed := len(m.Armings()); armed != 1 {
			clocktest.Advance(time.Second) // let Do end on whatever clock it waits on
			t.Fatalf("Do armed %d timers on the Standard's clock, want 1", armed)
		}
		if a := m.Step(); a.Delay != 50*ms {
			t.Errorf("Do waited %v on the Standard's clock, want 50ms", a.Delay)
		}
		if err := <-done; err != nil || calls != 2 {
			t.Fatalf("Do = %v after %d calls, want success after 2", err, calls)
		}
		if len(rec.log) != 4 || rec.log[0] != "start retry strategy" {
			t.Errorf("the Standard's observer saw %q, want a retry of 2 attempts", rec.log)
		}
	})
}
