package survival

import (
	"math"
	"slices"
	"time"
)

// Band is an estimate of the time a wait has left: its 10th, 50th and
// 90th percentiles.
type Band struct {
	P10, P50, P90 time.Duration
}

// Remaining estimates the time left, at elapsed since the wait began,
// to a wait last seen pending at pending: the quantiles of the durations
// longer than pending, less elapsed (never below zero). progress, when
// above zero, is the share of the work the service reports done: the time
// left is then the share not done of a whole wait of that length,
// (1-progress) × the quantile (none left from 1 on). ok is false when the
// distribution cannot say: empty, or the wait has run past what it knows
// (every duration it holds, or all but the waits known only to be longer).
func (d Dist) Remaining(pending, elapsed time.Duration, progress float64) (b Band, ok bool) {
	if d.Empty() {
		return Band{}, false
	}
	g := d.CDF(pending)
	var q [3]time.Duration
	for i, p := range [3]float64{0.1, 0.5, 0.9} {
		t, ok := d.Quantile(g + p*(1-g))
		if !ok || g >= d.Top() {
			return Band{}, false
		}
		switch {
		case progress >= 1:
			q[i] = 0
		case progress > 0:
			q[i] = time.Duration((1 - progress) * float64(t))
		default:
			q[i] = max(t-elapsed, 0)
		}
	}
	return Band{q[0], q[1], q[2]}, true
}

// Next returns when, since the wait began, to poll next after a poll that
// saw the wait pending at pending, so that the poll has the chance p of
// being the one that sees it done (Munford and Shahani's rule: each poll
// the same chance, given the ones before saw nothing). ok is false past
// what the distribution knows.
func (d Dist) Next(pending time.Duration, p float64) (time.Duration, bool) {
	if d.Empty() {
		return 0, false
	}
	g := d.CDF(pending)
	if g >= d.Top() {
		return 0, false
	}
	return d.Quantile(g + p*(1-g))
}

// Schedule is what Chance needs of a wait's schedule: its bounds and the
// Smithy schedule's mean delay before call n+1 (n from 1).
type Schedule struct {
	MinDelay, MaxDelay time.Duration
	// Smithy is the mean delay the Smithy schedule waits after call n.
	Smithy func(n int) time.Duration
	// Horizon is how long a wait may last: no poll is planned past it.
	Horizon time.Duration
}

// chance bounds: a poll's chance of seeing the end is searched between
// them.
const (
	minChance = 0.02
	maxChance = 0.9
)

// Chance returns the chance per poll at which the learned schedule
// (polls at d.Next, their gaps kept within MinDelay and MaxDelay, the
// Smithy schedule past what d knows) makes no more calls, on average over
// d, than the Smithy schedule does: the same calls, placed where the end
// is likely. It returns 0 if d is empty.
func Chance(d Dist, s Schedule) float64 {
	if d.Empty() || s.Horizon <= 0 || s.MinDelay <= 0 || s.MaxDelay < s.MinDelay {
		return 0
	}
	budget := d.expectedPolls(s, 0)
	lo, hi := minChance, maxChance
	if d.expectedPolls(s, lo) <= budget {
		return lo
	}
	for range 40 {
		mid := (lo + hi) / 2
		if d.expectedPolls(s, mid) <= budget {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// expectedPolls is the mean number of polls a wait makes, its duration
// drawn from d, on the learned schedule at chance p (0: the Smithy
// schedule), with no jitter.
func (d Dist) expectedPolls(s Schedule, p float64) float64 {
	polls, at := 1.0, time.Duration(0)
	for n := 1; n < 10000; n++ {
		gap := s.Smithy(n)
		if p > 0 {
			gap = d.Gap(at, at, p, s.MinDelay, s.MaxDelay, gap)
		}
		at += gap
		if at >= s.Horizon {
			break
		}
		polls += 1 - d.CDF(at-gap) // the poll at at comes if the one before saw it pending
	}
	return polls
}

// Gap returns the delay, from now, before the next poll of the learned
// schedule at chance p after a poll that saw the wait pending at pending
// (both since the wait began), kept within [lo, hi]; fallback (the Smithy
// schedule's) past what d knows.
func (d Dist) Gap(pending, now time.Duration, p float64, lo, hi, fallback time.Duration) time.Duration {
	next, ok := d.Next(pending, p)
	if !ok {
		return fallback
	}
	return min(max(next-now, lo), hi)
}

// Durations is the durations of past waits as their callers saw them, in
// no order: the time to the poll that saw a wait end, or Censored for a
// wait that never saw its end (a timeout).
type Durations []time.Duration

// Quantile returns the p-th quantile of the durations by Hazen's rule
// (the i-th smallest of n at (i-0.5)/n, linear between), the largest
// from (n-0.5)/n on; Censored if that lands on or between a Censored one.
// ok is false when there are none.
func (ds Durations) Quantile(p float64) (time.Duration, bool) {
	if len(ds) == 0 || math.IsNaN(p) {
		return 0, false
	}
	s := slices.Sorted(slices.Values(ds))
	h := p*float64(len(s)) + 0.5 // 1-based position
	switch {
	case h <= 1:
		return s[0], true
	case h >= float64(len(s)):
		return s[len(s)-1], true
	}
	i := int(h) // s[i-1] and s[i], 1-based i and i+1
	a, b := s[i-1], s[i]
	if b == Censored {
		return Censored, true
	}
	f := h - float64(i)
	return a + time.Duration(math.Round(f*float64(b-a))), true
}
