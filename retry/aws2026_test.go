package retry_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
)

// awsError is a service error as aws-sdk-go-v2 returns one: an HTTP status,
// perhaps an error code, and the response's headers.
type awsError struct {
	status int
	code   string
	header http.Header
}

func (e awsError) Error() string       { return http.StatusText(e.status) + " " + e.code }
func (e awsError) HTTPStatusCode() int { return e.status }

// RetryAfter reads x-amz-retry-after, as awswait does from the response.
func (e awsError) RetryAfter() time.Duration {
	d, _ := classify.RetryAfterHeader(e.header, time.Now())
	return d
}

// coded is an awsError with an error code, which Classify reads.
type coded struct{ awsError }

func (e coded) ErrorCode() string { return e.code }

// awsResponse returns the error of a response with the status (0: success),
// error code and x-amz-retry-after header given.
func awsResponse(status int, code, retryAfter string) error {
	if status == 0 {
		return nil
	}
	e := awsError{status: status, code: code, header: http.Header{}}
	if retryAfter != "" {
		e.header.Set("x-amz-retry-after", retryAfter)
	}
	if code != "" {
		return coded{e}
	}
	return e
}

// TestAWS2026Vectors runs the vectors of aws-sdk-go-v2's
// TestRetry2026StandardMode (aws/retry/retry2026_test.go, the AWS SDKs'
// 2026 retry behaviour, the default from aws-sdk-go-v2 v1.48.0) against
// the standard strategy with no jitter: each response's outcome, delay and
// retry quota. They pass with the defaults but for one rule: AWS clamps a
// retry-after hint to the backoff plus 5s, where this package by default
// never undercuts the service's hint (the Smithy retry guide's rule);
// with WithRetryAfterClamp(5s) that vector passes too.
func TestAWS2026Vectors(t *testing.T) {
	type want struct {
		reason    error         // nil: a retry (with delay), or a success when the response is
		delay     time.Duration // the retry's delay; with long polling, the wait before giving up
		available int           // the retry quota after the response
	}
	type response struct {
		status      int // 0: success
		code, after string
		want        want
	}
	const ms = time.Millisecond
	serverError := func(status int, w want) response { return response{status: status, want: w} }
	tests := []struct {
		name     string
		opts     []retry.Option
		longPoll bool
		steps    []response
	}{
		{"retry eventually succeeds", nil, false, []response{
			serverError(500, want{delay: 50 * ms, available: 486}),
			serverError(500, want{delay: 100 * ms, available: 472}),
			{want: want{available: 486}},
		}},
		{"fail due to max attempts reached", nil, false, []response{
			serverError(502, want{delay: 50 * ms, available: 486}),
			serverError(502, want{delay: 100 * ms, available: 472}),
			serverError(502, want{reason: retry.ErrMaxAttempts, available: 472}),
		}},
		{"retry quota reached after a single retry", []retry.Option{bucket(14)}, false, []response{
			serverError(500, want{delay: 50 * ms, available: 0}),
			serverError(500, want{reason: retry.ErrQuotaExceeded, available: 0}),
		}},
		{"no retries at all if retry quota is 0", []retry.Option{bucket(0)}, false, []response{
			serverError(500, want{reason: retry.ErrQuotaExceeded, available: 0}),
		}},
		{"verifying exponential backoff timing", []retry.Option{retry.WithMaxAttempts(5)}, false, []response{
			serverError(500, want{delay: 50 * ms, available: 486}),
			serverError(500, want{delay: 100 * ms, available: 472}),
			serverError(500, want{delay: 200 * ms, available: 458}),
			serverError(500, want{delay: 400 * ms, available: 444}),
			serverError(500, want{reason: retry.ErrMaxAttempts, available: 444}),
		}},
		{"verify max backoff time", []retry.Option{retry.WithMaxAttempts(5), retry.WithMaxBackoff(200 * ms)}, false, []response{
			serverError(500, want{delay: 50 * ms, available: 486}),
			serverError(500, want{delay: 100 * ms, available: 472}),
			serverError(500, want{delay: 200 * ms, available: 458}),
			serverError(500, want{delay: 200 * ms, available: 444}),
			serverError(500, want{reason: retry.ErrMaxAttempts, available: 444}),
		}},
		{"retry stops after retry quota exhaustion", []retry.Option{retry.WithMaxAttempts(5), bucket(20)}, false, []response{
			serverError(500, want{delay: 50 * ms, available: 6}),
			serverError(502, want{reason: retry.ErrQuotaExceeded, available: 6}),
		}},
		{"retry quota recovery after successful responses", []retry.Option{retry.WithMaxAttempts(5), bucket(30)}, false, []response{
			serverError(500, want{delay: 50 * ms, available: 16}),
			serverError(502, want{delay: 100 * ms, available: 2}),
			{want: want{available: 16}},
			serverError(500, want{delay: 50 * ms, available: 2}),
			{want: want{available: 16}},
		}},
		{"throttling error token bucket drain and backoff duration", nil, false, []response{
			{status: 400, code: "Throttling", want: want{delay: time.Second, available: 495}},
			{want: want{available: 500}},
		}},
		{"dynamodb base backoff and increased retries", []retry.Option{retry.WithService("dynamodb")}, false, []response{
			serverError(500, want{delay: 25 * ms, available: 486}),
			serverError(500, want{delay: 50 * ms, available: 472}),
			serverError(500, want{delay: 100 * ms, available: 458}),
			serverError(500, want{reason: retry.ErrMaxAttempts, available: 458}),
		}},
		{"long-polling backoff when token bucket empty", []retry.Option{bucket(0)}, true, []response{
			serverError(500, want{reason: retry.ErrQuotaExceeded, delay: 50 * ms, available: 0}),
		}},
		{"long-polling backoff after throttling error when token bucket empty", []retry.Option{bucket(0)}, true, []response{
			{status: 400, code: "Throttling", want: want{reason: retry.ErrQuotaExceeded, delay: 50 * ms, available: 0}},
		}},
		{"long-polling max attempts exceeded must not delay", []retry.Option{retry.WithMaxAttempts(2)}, true, []response{
			serverError(500, want{delay: 50 * ms, available: 486}),
			serverError(500, want{reason: retry.ErrMaxAttempts, available: 486}),
		}},
		{"long-polling success must not delay", []retry.Option{retry.WithMaxAttempts(2)}, true, []response{
			serverError(500, want{delay: 50 * ms, available: 486}),
			{want: want{available: 500}},
		}},
		{"long-polling non-retriable errors must not delay", []retry.Option{retry.WithMaxAttempts(2)}, true, []response{
			serverError(404, want{reason: retry.ErrNotRetryable, available: 500}),
		}},
		{"honor x-amz-retry-after header", nil, false, []response{
			{status: 500, after: "1500", want: want{delay: 1500 * ms, available: 486}},
			{want: want{available: 500}},
		}},
		{"x-amz-retry-after minimum is exponential backoff duration", nil, false, []response{
			{status: 500, after: "0", want: want{delay: 50 * ms, available: 486}},
			{want: want{available: 500}},
		}},
		{"x-amz-retry-after maximum is 5+exponential backoff duration", []retry.Option{retry.WithRetryAfterClamp(5 * time.Second)}, false, []response{
			{status: 500, after: "10000", want: want{delay: 5050 * ms, available: 486}},
			{want: want{available: 500}},
		}},
		{"x-amz-retry-after is never undercut by default (this package's rule, not AWS's)", nil, false, []response{
			{status: 500, after: "10000", want: want{delay: 10 * time.Second, available: 486}},
			{want: want{available: 500}},
		}},
		{"invalid x-amz-retry-after falls back to exponential backoff", nil, false, []response{
			{status: 500, after: "invalid", want: want{delay: 50 * ms, available: 486}},
			{want: want{available: 500}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]retry.Option{retry.WithJitter(backoff.High)}, tt.opts...)
			if tt.longPoll {
				opts = append(opts, retry.WithLongPoll())
			}
			s, err := retry.NewStandard(opts...)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			tok, _ := s.AcquireInitialToken(ctx, "")
			for i, r := range tt.steps {
				opErr := awsResponse(r.status, r.code, r.after)
				if opErr == nil {
					s.RecordSuccess(tok)
					tok, _ = s.AcquireInitialToken(ctx, "") // the next call starts afresh
				} else {
					next, err := s.RefreshToken(ctx, tok, opErr)
					switch {
					case r.want.reason != nil:
						var re *retry.Error
						if !errors.Is(err, r.want.reason) {
							t.Fatalf("step %d: RefreshToken(%v) = %v, want %v", i, opErr, err, r.want.reason)
						}
						if r.want.delay > 0 && (!errors.As(err, &re) || re.Delay != r.want.delay) {
							t.Errorf("step %d: a long poll waits %v before giving up, want %v", i, re.Delay, r.want.delay)
						}
					case err != nil:
						t.Fatalf("step %d: RefreshToken(%v) = %v, want a retry", i, opErr, err)
					case next.Delay() != r.want.delay:
						t.Errorf("step %d: delay %v, want %v", i, next.Delay(), r.want.delay)
					default:
						tok = next
					}
				}
				if got := s.Bucket("").Available(); got != r.want.available {
					t.Errorf("step %d: retry quota %d, want %d", i, got, r.want.available)
				}
			}
		})
	}
}

// TestAWS2026LongPollWaitsOnEmptyQuota: the vector of aws-sdk-go-v2's
// TestLongPollingContextBackoff: a long-polling call whose retry quota is
// empty waits its backoff before Do returns the error, so that a loop of
// long polls does not spin against a failing service; a call that is not
// a long poll returns at once.
func TestAWS2026LongPollWaitsOnEmptyQuota(t *testing.T) {
	for _, longPoll := range []bool{true, false} {
		clocktest.Run(t, func(t *testing.T) {
			opts := []retry.Option{retry.WithJitter(backoff.High), bucket(0), retry.WithClock(clocktest.Clock())}
			if longPoll {
				opts = append(opts, retry.WithLongPoll())
			}
			s, err := retry.NewStandard(opts...)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = retry.Do(t.Context(), s, func(context.Context) (int, error) { return 0, awsResponse(500, "", "") })
			want := time.Duration(0)
			if longPoll {
				want = 50 * time.Millisecond
			}
			if !errors.Is(err, retry.ErrQuotaExceeded) || time.Since(start) != want {
				t.Errorf("long poll %t: Do = %v after %v, want ErrQuotaExceeded after %v", longPoll, err, time.Since(start), want)
			}
		})
	}
}

// bucket gives a strategy a retry quota of its own, of capacity n.
func bucket(n int) retry.Option { return retry.WithTokenBucket(retry.NewTokenBucket(n)) }
