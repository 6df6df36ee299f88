package waiter

import (
	"math"
	"time"
)

// instant is a time held as another time and a duration after it: the end
// of a call, as the call's start and its latency. Comparing it with other
// times costs a subtraction; time.Time.Add, which costs more, runs only
// when the instant itself is needed (the next call's due time).
type instant struct {
	at    time.Time
	after time.Duration
}

// until returns u minus the instant, saturated as time.Time.Sub is.
func (t instant) until(u time.Time) time.Duration {
	d := u.Sub(t.at)
	if saturated(d) {
		return u.Sub(t.time()) // beyond a Duration from at: exactly, the slow way
	}
	return addSat(d, -t.after)
}

// since returns the instant minus u, saturated as time.Time.Sub is.
func (t instant) since(u time.Time) time.Duration {
	d := t.at.Sub(u)
	if saturated(d) {
		return t.time().Sub(u)
	}
	return addSat(d, t.after)
}

// saturated reports whether d is where time.Time.Sub saturates.
func saturated(d time.Duration) bool { return d == math.MaxInt64 || d == math.MinInt64 }

// add returns the instant plus d.
func (t instant) add(d time.Duration) time.Time { return t.at.Add(addSat(t.after, d)) }

// time returns the instant as a time.Time.
func (t instant) time() time.Time { return t.at.Add(t.after) }

// addSat returns a+b, or the largest or smallest Duration when the sum
// overflows.
func addSat(a, b time.Duration) time.Duration {
	s := a + b
	if (s > a) != (b > 0) { // it wrapped
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}
