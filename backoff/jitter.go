package backoff

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Jitter returns a duration in the inclusive range [lo, hi]. Callers pass
// lo <= hi; a Jitter given hi < lo returns lo.
//
// Every schedule and [Policy] in this package draws its randomness through a
// Jitter, so a test can pass [Low], [High] or [Midpoint] and get exact values.
// A nil Jitter means [Uniform]. Whatever a Jitter returns is clamped to
// [lo, hi] by its caller in this package, so a faulty Jitter cannot break the
// bounds a schedule promises.
type Jitter func(lo, hi time.Duration) time.Duration

// Uniform is the default [Jitter]: a duration drawn uniformly from [lo, hi]
// with nanosecond resolution, from the math/rand/v2 global generator. It is
// safe for concurrent use, takes no lock and does not allocate. It is not
// cryptographically random, and need not be: jitter spreads load, it keeps
// no secret.
func Uniform(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	// hi-lo+1 fits in a uint64 for every pair of durations.
	return lo + time.Duration(rand.Uint64N(uint64(hi-lo)+1))
}

// Low is a [Jitter] that always returns lo: the shortest delay a schedule
// allows. Use it in tests and simulations.
func Low(lo, hi time.Duration) time.Duration { return lo }

// High is a [Jitter] that always returns hi (or lo if hi < lo): the longest
// delay a schedule allows. Use it in tests and simulations.
func High(lo, hi time.Duration) time.Duration { return max(lo, hi) }

// Midpoint is a [Jitter] that always returns the middle of [lo, hi], rounded
// down. Use it in tests and simulations.
func Midpoint(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + (hi-lo)/2
}

// Seeded returns a [Jitter] that draws uniformly from a PCG generator seeded
// with seed, so that a schedule can be replayed: two Jitters with the same
// seed return the same sequence for the same calls. The returned Jitter is
// safe for concurrent use (it serialises calls with a mutex), but the
// sequence is only reproducible when the calls come in a reproducible order.
func Seeded(seed uint64) Jitter {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	return func(lo, hi time.Duration) time.Duration {
		if hi <= lo {
			return lo
		}
		mu.Lock()
		n := r.Uint64N(uint64(hi-lo) + 1)
		mu.Unlock()
		return lo + time.Duration(n)
	}
}

// draw calls j (or Uniform when j is nil) and clamps its answer to [lo, hi].
func draw(j Jitter, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	var d time.Duration
	if j == nil {
		d = Uniform(lo, hi)
	} else {
		d = j(lo, hi)
	}
	return min(max(d, lo), hi)
}

// grow returns base * 2^(attempt-1), or limit when that exceeds limit, without
// overflowing for any attempt. base and limit must not be negative.
func grow(base, limit time.Duration, attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	shift := uint(attempt - 1)
	// base<<shift <= limit  ⇔  base <= limit>>shift, for non-negative integers.
	if shift >= 63 || base > limit>>shift {
		return limit
	}
	return base << shift
}
