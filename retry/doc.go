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
// # AWS's 2026 retry behaviour
//
// [Standard]'s defaults are the AWS SDKs' 2026 retry behaviour, the
// default of aws-sdk-go-v2 from v1.48.0: a retry costs 14 tokens of a
// 500-token bucket and a throttle 5, a success refunds what its retry
// paid, transient errors back off from 50ms and throttles from 1s to at
// most 20s, 3 attempts ([WithService] gives DynamoDB's 25ms and 4), and a
// long poll that gives up on an empty quota first waits the ordinary
// backoff ([WithLongPoll]). AWS's vectors for it pass, but for one rule
// on purpose: AWS's SDKs count a retry-after hint (x-amz-retry-after,
// Retry-After) at most as the backoff plus 5s, where this package never
// undercuts it by default, because the Smithy retry guide says a hint is
// "information directly from the service": a service that asks for a
// minute gets a minute. [WithRetryAfterClamp](5 * time.Second) gives
// AWS's rule.
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
