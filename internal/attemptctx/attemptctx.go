// Package attemptctx marks a context as one attempt of a waiter, so that
// retry.Do called inside a waiter's operation makes a single attempt: the
// waiter's schedule replaces the retry loop (the Smithy RFC's requirement
// that waiters do not stack retries on retries).
package attemptctx

import "context"

type key struct{}

// Mark returns ctx marked as a waiter attempt.
func Mark(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// Marked reports whether ctx is a waiter attempt.
func Marked(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}
