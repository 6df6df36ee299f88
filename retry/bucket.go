package retry

import "sync"

// TokenBucket is the retry quota of a client: every retry takes tokens from
// it and every success gives some back, so that when a service fails
// broadly, a client's many callers stop retrying together instead of
// multiplying the load. Share one bucket between the strategies of one
// client. A TokenBucket is safe for concurrent use; its zero value is an
// empty bucket of capacity 0 (every retry is refused): use [NewTokenBucket].
type TokenBucket struct {
	mu        sync.Mutex
	capacity  int
	available int
}

// NewTokenBucket returns a full bucket of the given capacity (at least 0).
func NewTokenBucket(capacity int) *TokenBucket {
	capacity = max(capacity, 0)
	return &TokenBucket{capacity: capacity, available: capacity}
}

// Available returns the number of tokens in the bucket now.
func (b *TokenBucket) Available() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.available
}

// Capacity returns the most tokens the bucket holds.
func (b *TokenBucket) Capacity() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.capacity
}

// take removes n tokens if there are that many, and reports whether it did.
func (b *TokenBucket) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.available {
		return false
	}
	b.available -= n
	return true
}

// give returns n tokens, up to the capacity (without overflowing, however
// large the capacity).
func (b *TokenBucket) give(n int) {
	b.mu.Lock()
	if n >= b.capacity-b.available {
		b.available = b.capacity
	} else {
		b.available += n
	}
	b.mu.Unlock()
}
