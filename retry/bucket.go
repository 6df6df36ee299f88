package retry

import "sync/atomic"

// TokenBucket is the retry quota of a client: every retry takes tokens from
// it and every success gives some back, so that when a service fails
// broadly, a client's many callers stop retrying together instead of
// multiplying the load. Share one bucket between the strategies of one
// client. A TokenBucket is safe for concurrent use; its zero value is an
// empty bucket of capacity 0 (every retry is refused): use [NewTokenBucket].
type TokenBucket struct {
	capacity  int          // fixed when the bucket is made
	available atomic.Int64 // 0 ≤ available ≤ capacity
}

// NewTokenBucket returns a full bucket of the given capacity (at least 0).
func NewTokenBucket(capacity int) *TokenBucket {
	b := &TokenBucket{capacity: max(capacity, 0)}
	b.available.Store(int64(b.capacity))
	return b
}

// Available returns the number of tokens in the bucket now.
func (b *TokenBucket) Available() int { return int(b.available.Load()) }

// take removes n tokens if there are that many, and reports whether it did.
// Taking nothing always succeeds and leaves the bucket as it is.
func (b *TokenBucket) take(n int) bool {
	if n == 0 {
		return true
	}
	for {
		a := b.available.Load()
		if int64(n) > a {
			return false
		}
		if b.available.CompareAndSwap(a, a-int64(n)) {
			return true
		}
	}
}

// give returns n tokens, up to the capacity (without overflowing, however
// large the capacity).
func (b *TokenBucket) give(n int) {
	for {
		a := b.available.Load()
		next := int64(b.capacity)
		if int64(n) < next-a {
			next = a + int64(n)
		}
		if next == a || b.available.CompareAndSwap(a, next) {
			return
		}
	}
}
