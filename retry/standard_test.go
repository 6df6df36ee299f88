package retry_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const ms = time.Millisecond

// Errors with retry information, as a service client would return them.
type (
	transient struct{}
	throttle  struct{ after time.Duration }
	fatal     struct{}
	timeout   struct{}
	unknown   struct{}
)

func (transient) Error() string              { return "503 service unavailable" }
func (transient) HTTPStatusCode() int        { return 503 }
func (e throttle) Error() string             { return "throttled" }
func (e throttle) ErrorCode() string         { return "ThrottlingException" }
func (e throttle) RetryAfter() time.Duration { return e.after }
func (fatal) Error() string                  { return "access denied" }
func (fatal) RetrySafety() classify.Safety   { return classify.SafetyNo }
func (timeout) Error() string                { return "i/o timeout" }
func (timeout) Timeout() bool                { return true }
func (unknown) Error() string                { return "something odd" }

// step is one outcome fed to the strategy, and what must follow.
type step struct {
	err       error // nil: the attempt succeeds
	delay     time.Duration
	reason    error // the refusal expected, nil for a retry
	available int   // the bucket after the step
}

func TestStandardSequences(t *testing.T) {
	tests := []struct {
		name  string
		opts  []retry.Option
		steps []step
	}{
		{"transient then success", nil, []step{
			{err: transient{}, delay: 50 * ms, available: 486},
			{err: transient{}, delay: 100 * ms, available: 472},
			{err: nil, available: 486}, // success refunds what the last retry paid
		}},
		{"max attempts", nil, []step{
			{err: transient{}, delay: 50 * ms, available: 486},
			{err: transient{}, delay: 100 * ms, available: 472},
			{err: transient{}, reason: retry.ErrMaxAttempts, available: 472},
		}},
		{"throttle backs off from 1s and costs 5", nil, []step{
			{err: throttle{}, delay: time.Second, available: 495},
			{err: throttle{}, delay: 2 * time.Second, available: 490},
			{err: nil, available: 495},
		}},
		{"retry-after is never undercut", []retry.Option{retry.WithMaxAttempts(5)}, []step{
			{err: throttle{after: 3 * time.Second}, delay: 3 * time.Second, available: 495},
			{err: transient{}, delay: 100 * ms, available: 481},
			{err: throttle{after: 30 * time.Second}, delay: 30 * time.Second, available: 476},
			{err: throttle{after: time.Hour}, delay: time.Hour, available: 471},
		}},
		{"retry-after clamp is opt-in", []retry.Option{retry.WithMaxAttempts(5), retry.WithRetryAfterClamp(5 * time.Second)}, []step{
			{err: throttle{after: 3 * time.Second}, delay: 3 * time.Second, available: 495},
			{err: throttle{after: 30 * time.Second}, delay: 7 * time.Second, available: 490},
			{err: throttle{after: time.Hour}, delay: 9 * time.Second, available: 485},
		}},
		{"not retryable", nil, []step{
			{err: fatal{}, reason: retry.ErrNotRetryable, available: 500},
		}},
		{"unknown safety is not retried", nil, []step{
			{err: unknown{}, reason: retry.ErrNotRetryable, available: 500},
		}},
		{"quota runs out", []retry.Option{retry.WithTokenBucket(retry.NewTokenBucket(30)), retry.WithMaxAttempts(10)}, []step{
			{err: transient{}, delay: 50 * ms, available: 16},
			{err: transient{}, delay: 100 * ms, available: 2},
			{err: transient{}, reason: retry.ErrQuotaExceeded, available: 2},
		}},
		{"success without retries refunds 1", []retry.Option{retry.WithTokenBucket(func() *retry.TokenBucket {
			b := retry.NewTokenBucket(500)
			return b
		}())}, []step{
			{err: nil, available: 500}, // already full: capped
		}},
		{"legacy costs", []retry.Option{retry.WithLegacyCosts(), retry.WithMaxAttempts(4)}, []step{
			{err: transient{}, delay: 50 * ms, available: 495},
			{err: timeout{}, delay: 100 * ms, available: 485},
			{err: throttle{}, delay: 4 * time.Second, available: 480},
			{err: nil, available: 481},
		}},
		{"max backoff", []retry.Option{retry.WithMaxAttempts(20), retry.WithMaxBackoff(150 * ms)}, []step{
			{err: transient{}, delay: 50 * ms, available: 486},
			{err: transient{}, delay: 100 * ms, available: 472},
			{err: transient{}, delay: 150 * ms, available: 458},
			{err: transient{}, delay: 150 * ms, available: 444},
		}},
		{"decorrelated carries the previous delay", []retry.Option{retry.WithMaxAttempts(5), retry.WithBackoff(backoff.Decorrelated(10*ms, time.Second))}, []step{
			{err: transient{}, delay: 30 * ms, available: 486},
			{err: transient{}, delay: 90 * ms, available: 472},
			{err: transient{}, delay: 270 * ms, available: 458},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := retry.NewStandard(append([]retry.Option{retry.WithJitter(backoff.High)}, tt.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			tok, err := s.AcquireInitialToken(ctx, "")
			if err != nil || tok.RetryCount() != 0 || tok.Delay() != 0 {
				t.Fatalf("AcquireInitialToken = %v, %v", tok, err)
			}
			for i, st := range tt.steps {
				if st.err == nil {
					s.RecordSuccess(tok)
				} else {
					next, err := s.RefreshToken(ctx, tok, st.err)
					switch {
					case st.reason != nil:
						if !errors.Is(err, st.reason) || !errors.Is(err, st.err) {
							t.Fatalf("step %d: RefreshToken(%v) = %v, want %v wrapping the error", i, st.err, err, st.reason)
						}
					case err != nil:
						t.Fatalf("step %d: RefreshToken(%v) = %v, want a retry", i, st.err, err)
					default:
						if next.Delay() != st.delay || next.RetryCount() != tok.RetryCount()+1 {
							t.Errorf("step %d: delay %v, retry count %d; want %v, %d", i, next.Delay(), next.RetryCount(), st.delay, tok.RetryCount()+1)
						}
						tok = next
					}
				}
				if got := s.Bucket("").Available(); got != st.available {
					t.Errorf("step %d: bucket has %d, want %d", i, got, st.available)
				}
			}
		})
	}
}

func TestIdempotentRetriesMaybe(t *testing.T) {
	s, _ := retry.NewStandard(retry.WithJitter(backoff.High))
	ctx := retry.WithIdempotent(context.Background())
	tok, _ := s.AcquireInitialToken(ctx, "")
	next, err := s.RefreshToken(ctx, tok, unknown{})
	if err != nil || next.Delay() != 50*ms {
		t.Fatalf("idempotent call with an unknown error: %v, %v; want a retry", next, err)
	}
}

func TestInvalidTokens(t *testing.T) {
	s, _ := retry.NewStandard()
	other, _ := retry.NewStandard()
	ctx := context.Background()
	tok, _ := s.AcquireInitialToken(ctx, "")
	foreign, _ := other.AcquireInitialToken(ctx, "")

	if _, err := s.RefreshToken(ctx, foreign, transient{}); !invalidToken(err) || !errors.Is(err, transient{}) {
		t.Errorf("foreign token: %v, want an invalid token wrapping the error", err)
	}
	if _, err := s.RefreshToken(ctx, nil, transient{}); !invalidToken(err) {
		t.Errorf("nil token: %v, want an invalid token", err)
	}
	if _, err := s.RefreshToken(ctx, tok, transient{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshToken(ctx, tok, transient{}); !invalidToken(err) {
		t.Errorf("spent token refreshed again: %v, want an invalid token", err)
	}
	before := s.Bucket("").Available()
	s.RecordSuccess(tok) // spent
	s.RecordSuccess(foreign)
	s.RecordSuccess(nil)
	if after := s.Bucket("").Available(); after != before {
		t.Errorf("RecordSuccess of spent, foreign and nil tokens: bucket %d -> %d, want no refund", before, after)
	}
	fresh, _ := s.AcquireInitialToken(ctx, "")
	if _, err := s.RefreshToken(ctx, fresh, nil); !invalidToken(err) {
		t.Errorf("refresh without an error: %v", err)
	}

	bucket := retry.NewTokenBucket(100)
	a, _ := retry.NewAdaptive(retry.WithTokenBucket(bucket))
	if _, err := a.RefreshToken(ctx, foreign, transient{}); !invalidToken(err) || !errors.Is(err, transient{}) {
		t.Errorf("adaptive, foreign token: %v, want an invalid token wrapping the error", err)
	}
	atok, _ := a.AcquireInitialToken(ctx, "")
	if _, err := a.RefreshToken(ctx, atok, transient{}); err != nil {
		t.Fatal(err)
	}
	before = bucket.Available()
	a.RecordSuccess(atok) // spent
	if _, err := a.RefreshToken(ctx, atok, transient{}); !invalidToken(err) {
		t.Errorf("adaptive, spent token: %v, want an invalid token", err)
	}
	if after := bucket.Available(); after != before {
		t.Errorf("adaptive RecordSuccess of a spent token: bucket %d -> %d, want no refund", before, after)
	}
}

// invalidToken reports a refusal for a misused token: an *Error that says
// so and matches none of the sentinels a caller branches on.
func invalidToken(err error) bool {
	var re *retry.Error
	return errors.As(err, &re) && strings.HasPrefix(err.Error(), "retry: invalid retry token") &&
		!errors.Is(err, retry.ErrMaxAttempts) && !errors.Is(err, retry.ErrQuotaExceeded) &&
		!errors.Is(err, retry.ErrNotRetryable)
}

func TestScopes(t *testing.T) {
	s, _ := retry.NewStandard(retry.WithTokenBucket(retry.NewTokenBucket(100)))
	ctx := context.Background()
	a, _ := s.AcquireInitialToken(ctx, "eu-west-1")
	if _, err := s.RefreshToken(ctx, a, transient{}); err != nil {
		t.Fatal(err)
	}
	if s.Bucket("eu-west-1").Available() != 86 || s.Bucket("").Available() != 100 || s.Bucket("us-east-1").Available() != 100 {
		t.Errorf("buckets: scope %d, default %d, other %d", s.Bucket("eu-west-1").Available(), s.Bucket("").Available(), s.Bucket("us-east-1").Available())
	}
}

func TestOptionErrors(t *testing.T) {
	for _, tt := range []struct {
		opt  retry.Option
		want string
	}{
		{retry.WithMaxAttempts(0), "max attempts 0 is less than 1"},
		{retry.WithBackoff(backoff.Exponential(0, time.Second)), "base delay is zero"},
		{retry.WithMaxBackoff(-1), "max backoff -1ns is not positive"},
		{retry.WithTokenBucket(nil), "token bucket is nil"},
		{retry.WithCosts(-1, 0, 0), "none may be negative"},
		{retry.WithClassifier(nil), "classifier is nil"},
		{retry.WithClock(nil), "clock is nil"},
		{retry.WithRetryAfterClamp(-1), "retry-after clamp -1ns is not positive"},
	} {
		_, err := retry.NewStandard(tt.opt)
		if !errors.Is(err, retry.ErrInvalidOption) || !contains(err, tt.want) {
			t.Errorf("NewStandard(bad option) = %v, want ErrInvalidOption with %q", err, tt.want)
		}
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// TestBucketConcurrency: 100 goroutines share one bucket through one
// strategy; every token taken and given back is accounted for.
func TestBucketConcurrency(t *testing.T) {
	const capacity = 1_000_000
	bucket := retry.NewTokenBucket(capacity)
	ctx := context.Background()
	// Drain half the bucket first, so that no refund is lost to the cap
	// and the final count does not depend on the goroutines' order.
	drain, _ := retry.NewStandard(retry.WithTokenBucket(bucket), retry.WithCosts(capacity/2, 0, 0))
	tok, _ := drain.AcquireInitialToken(ctx, "")
	if _, err := drain.RefreshToken(ctx, tok, transient{}); err != nil {
		t.Fatal(err)
	}
	s, _ := retry.NewStandard(retry.WithTokenBucket(bucket), retry.WithMaxAttempts(3), retry.WithCosts(7, 7, 0))
	var wg sync.WaitGroup
	var mu sync.Mutex
	retries, refused, plain, afterRetry := 0, 0, 0, 0
	for g := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				tok, _ := s.AcquireInitialToken(ctx, "")
				var err error
				r := 0
				for ; err == nil && r < (g+i)%4; r++ {
					var next retry.Token
					if next, err = s.RefreshToken(ctx, tok, transient{}); err == nil {
						tok = next
					}
				}
				mu.Lock()
				if err != nil {
					retries += r - 1
					refused++
				} else {
					retries += r
					s.RecordSuccess(tok)
					if r == 0 {
						plain++
					} else {
						afterRetry++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if refused == 0 || plain == 0 || afterRetry == 0 {
		t.Fatalf("refused %d, plain %d, after retry %d: the test exercised too little", refused, plain, afterRetry)
	}
	want := capacity - capacity/2 - 7*retries + 7*afterRetry + plain
	if got := bucket.Available(); got != want {
		t.Errorf("bucket has %d, want %d after %d retries, %d successes after a retry, %d without", got, want, retries, afterRetry, plain)
	}
}

// FuzzStandard drives the strategy with arbitrary outcomes and checks its
// invariants: no negative delay, never more attempts than allowed, the
// bucket within [0, capacity].
func FuzzStandard(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4}, uint8(3), uint16(500))
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1}, uint8(10), uint16(20))
	f.Fuzz(func(t *testing.T, outcomes []byte, maxAttempts uint8, capacity uint16) {
		attempts := int(maxAttempts%20) + 1
		bucket := retry.NewTokenBucket(int(capacity))
		s, err := retry.NewStandard(retry.WithMaxAttempts(attempts), retry.WithTokenBucket(bucket))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		errs := []error{transient{}, throttle{after: time.Duration(len(outcomes)) * time.Second}, fatal{}, timeout{}, unknown{}, nil}
		tok, _ := s.AcquireInitialToken(ctx, "")
		made := 1
		for _, o := range outcomes {
			e := errs[int(o)%len(errs)]
			if e == nil {
				s.RecordSuccess(tok)
				tok, _ = s.AcquireInitialToken(ctx, "")
				made = 1
				continue
			}
			next, err := s.RefreshToken(ctx, tok, e)
			if err != nil {
				tok, _ = s.AcquireInitialToken(ctx, "")
				made = 1
				continue
			}
			made++
			if made > attempts {
				t.Fatalf("%d attempts allowed, %d made", attempts, made)
			}
			if next.Delay() < 0 {
				t.Fatalf("negative delay %v", next.Delay())
			}
			tok = next
			if a := bucket.Available(); a < 0 || a > int(capacity) {
				t.Fatalf("bucket %d outside [0, %d]", a, capacity)
			}
		}
	})
}

// TestFreeRetriesFromAnEmptyBucket: a retry that costs nothing is allowed
// by a bucket with no tokens, and leaves it as it was; one that costs
// something is refused.
func TestFreeRetriesFromAnEmptyBucket(t *testing.T) {
	ctx := context.Background()
	bucket := retry.NewTokenBucket(0)
	free, _ := retry.NewStandard(retry.WithTokenBucket(bucket), retry.WithCosts(0, 0, 0))
	tok, _ := free.AcquireInitialToken(ctx, "")
	if _, err := free.RefreshToken(ctx, tok, transient{}); err != nil {
		t.Errorf("free retry from an empty bucket: %v, want a retry", err)
	}
	if got := bucket.Available(); got != 0 {
		t.Errorf("Available() = %d after a free retry, want 0", got)
	}
	paid, _ := retry.NewStandard(retry.WithTokenBucket(bucket), retry.WithCosts(1, 1, 0))
	tok, _ = paid.AcquireInitialToken(ctx, "")
	if _, err := paid.RefreshToken(ctx, tok, transient{}); !errors.Is(err, retry.ErrQuotaExceeded) {
		t.Errorf("paid retry from an empty bucket: %v, want ErrQuotaExceeded", err)
	}
}

// TestDefaultsAsDocumented: with no option, the standard strategy is what
// the options' docs state: 3 attempts, full jitter from 50ms (1s after a
// throttle) capped at 20s, a bucket of 500 tokens, a retry costing 14, 5
// after a throttle, and 14 after a timeout (its cost 0: as an ordinary
// error).
func TestDefaultsAsDocumented(t *testing.T) {
	ctx := context.Background()
	s, _ := retry.NewStandard(retry.WithJitter(backoff.High))
	if got := s.Bucket("").Available(); got != 500 {
		t.Errorf("the default bucket has %d tokens, want 500", got)
	}
	attempts := 1
	for tok, _ := s.AcquireInitialToken(ctx, ""); ; attempts++ {
		next, err := s.RefreshToken(ctx, tok, transient{})
		if err != nil {
			if !errors.Is(err, retry.ErrMaxAttempts) {
				t.Fatalf("RefreshToken = %v, want ErrMaxAttempts", err)
			}
			break
		}
		tok = next
	}
	if attempts != 3 {
		t.Errorf("%d attempts by default, want 3", attempts)
	}
	for _, tt := range []struct {
		err   error
		delay []time.Duration // the delays of retries 1, 2, …
		cost  int
	}{
		{transient{}, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms,
			3200 * ms, 6400 * ms, 12800 * ms, 20 * time.Second}, 14},
		{throttle{}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
			16 * time.Second, 20 * time.Second, 20 * time.Second}, 5},
		{timeout{}, []time.Duration{50 * ms}, 14},
	} {
		bucket := retry.NewTokenBucket(500)
		s, _ := retry.NewStandard(retry.WithJitter(backoff.High), retry.WithMaxAttempts(100),
			retry.WithTokenBucket(bucket))
		tok, _ := s.AcquireInitialToken(ctx, "")
		for i, want := range tt.delay {
			next, err := s.RefreshToken(ctx, tok, tt.err)
			if err != nil || next.Delay() != want {
				t.Fatalf("%v: retry %d waits %v (%v), want %v", tt.err, i+1, next, err, want)
			}
			tok = next
		}
		if got := 500 - bucket.Available(); got != tt.cost*len(tt.delay) {
			t.Errorf("%v: %d retries took %d tokens, want %d each", tt.err, len(tt.delay), got, tt.cost)
		}
	}
}
