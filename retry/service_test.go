package retry_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
)

// TestBucketNeverOverflows: a bucket of the largest capacity stays full
// after a success instead of wrapping to a negative level.
func TestBucketNeverOverflows(t *testing.T) {
	b := retry.NewTokenBucket(math.MaxInt)
	s, err := retry.NewStandard(retry.WithTokenBucket(b))
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := s.AcquireInitialToken(context.Background(), "")
	s.RecordSuccess(tok)
	if got := b.Available(); got != math.MaxInt {
		t.Fatalf("Available() after a success = %d, want %d", got, math.MaxInt)
	}
	tok, _ = s.AcquireInitialToken(context.Background(), "")
	if _, err := s.RefreshToken(context.Background(), tok, unavailable{}); err != nil {
		t.Errorf("RefreshToken = %v, want a retry", err)
	}
}

// TestServiceDefaults: DynamoDB's 2026 defaults (25ms base, 4 attempts)
// unless the caller set its own; other services keep 50ms and 3.
func TestServiceDefaults(t *testing.T) {
	for _, tt := range []struct {
		service  string
		opts     []retry.Option
		attempts int
		first    time.Duration // the first retry's delay, jitter at its highest
	}{
		{"DynamoDB", nil, 4, 25 * time.Millisecond},
		{"dynamodb streams", nil, 4, 25 * time.Millisecond},
		{"DynamoDB", []retry.Option{retry.WithMaxAttempts(2)}, 2, 25 * time.Millisecond},
		{"S3", nil, 3, 50 * time.Millisecond},
	} {
		s, err := retry.NewStandard(append(tt.opts, retry.WithService(tt.service), retry.WithJitter(backoff.High))...)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := s.AcquireInitialToken(context.Background(), "")
		next, err := s.RefreshToken(context.Background(), tok, unavailable{})
		if err != nil || next.Delay() != tt.first {
			t.Fatalf("WithService(%q): first retry %v, %v; want one after %v", tt.service, next, err, tt.first)
		}
		if n := attemptsAllowed(s); n != tt.attempts {
			t.Errorf("WithService(%q): %d attempts, want %d", tt.service, n, tt.attempts)
		}
	}
}

// attemptsAllowed returns how many attempts s allows a call that fails
// with a 503 each time.
func attemptsAllowed(s retry.Strategy) int {
	ctx := context.Background()
	tok, _ := s.AcquireInitialToken(ctx, "")
	n := 1
	for ; ; n++ {
		next, err := s.RefreshToken(ctx, tok, unavailable{})
		if err != nil {
			return n
		}
		tok = next
	}
}

// TestLongPollKeepsBackingOff: with an empty quota, a long-polling call
// waits its backoff before giving up, instead of failing at once.
func TestLongPollKeepsBackingOff(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		for _, longPoll := range []bool{false, true} {
			opts := []retry.Option{retry.WithTokenBucket(retry.NewTokenBucket(0)), retry.WithJitter(backoff.High)}
			if longPoll {
				opts = append(opts, retry.WithLongPoll())
			}
			s, err := retry.NewStandard(opts...)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = retry.Do(t.Context(), s, func(context.Context) (int, error) { return 0, unavailable{} })
			want := time.Duration(0)
			if longPoll {
				want = 50 * time.Millisecond
			}
			if !errors.Is(err, retry.ErrQuotaExceeded) || time.Since(start) != want {
				t.Errorf("long poll %t: Do = %v after %v, want ErrQuotaExceeded after %v", longPoll, err, time.Since(start), want)
			}
		}
	})
}

// TestNotRetryableSaysWhy: the error of a call that was not retried says
// why, and how to change it when an option can.
func TestNotRetryableSaysWhy(t *testing.T) {
	s, err := retry.NewStandard()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"plain error", context.Background(), errors.New("boom"),
			"the error says nothing of whether a retry is safe, and the call is not marked idempotent (retry.WithIdempotent(ctx) allows retrying it)"},
		{"client fault", context.Background(), forbidden{}, "a client fault: the request is wrong as it is"},
		{"says so", context.Background(), notRetryable{}, "the error says it is not retryable"},
	} {
		calls := 0
		_, err := retry.Do(tt.ctx, s, func(context.Context) (int, error) { calls++; return 0, tt.err })
		if !errors.Is(err, retry.ErrNotRetryable) || calls != 1 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Do = %v after %d calls, want ErrNotRetryable after 1 saying %q", tt.name, err, calls, tt.want)
		}
	}
}

type forbidden struct{}

func (forbidden) Error() string       { return "403 forbidden" }
func (forbidden) HTTPStatusCode() int { return 403 }

type notRetryable struct{}

func (notRetryable) Error() string        { return "nope" }
func (notRetryable) RetryableError() bool { return false }
