// Package retry retries failed calls safely: the Smithy retry interfaces
// ([Strategy], [Token]), the AWS SDKs' standard strategy with a shared
// token bucket ([Standard], [TokenBucket]), their adaptive mode with a
// CUBIC send-rate limiter ([Adaptive]), and the loop that drives them,
// [Do].
//
//	s, _ := retry.NewStandard()            // 3 attempts, 50ms full jitter, 500-token bucket
//	out, err := retry.Do(ctx, s, func(ctx context.Context) (*Output, error) {
//		return client.Get(ctx, in)
//	})
//
// Whether an error is worth a retry is [classify.Classify]'s verdict: the
// error's own retry information (RetrySafety, RetryableError, Throttle,
// Timeout, RetryAfter...) anywhere on its chain, then well-known Go errors
// and AWS codes. A strategy refuses with an [*Error] that says why
// (errors.Is: [ErrMaxAttempts], [ErrQuotaExceeded], [ErrNotRetryable], or
// the context's cause) and unwraps to the operation's last error.
//
// Time goes through the strategy's injected clock ([WithClock]), so tests
// of retrying code run in virtual time (see package clocktest).
//
// What the package deliberately does not do:
//   - It does not retry inside a waiter: [Do] called in a waiter's
//     operation makes one attempt, because the waiter's schedule already
//     decides when to call again, and retries inside polls would multiply
//     the load the schedule exists to bound.
//   - It does not retry what it cannot prove safe, unless told: an error
//     with no retry information is retried only for operations marked
//     idempotent ([WithIdempotent]).
//   - It keeps no per-call state in a strategy: that lives in tokens, so one
//     strategy serves any number of concurrent calls.
package retry
