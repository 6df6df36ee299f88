// Package survival estimates how long a wait takes from the waits before
// it, and where a schedule that learns from them polls next.
//
// A past wait is known only between two polls: it was still pending at
// one and done by the next, or, for a wait that timed out, still pending
// at its last poll. [Fit] estimates the distribution of the durations from
// such intervals with Turnbull's self-consistency algorithm (the
// nonparametric maximum-likelihood estimate for interval-censored data),
// never treating a poll's time as the time the resource was done, and
// spreads each estimated mass evenly over its interval. The [Dist] it
// returns is a cumulative distribution, linear between its points, whose
// quantiles are Hazen's plotting positions for exactly known durations: the
// i-th of n waits sits at (i-0.5)/n.
//
// Nothing here reads a clock or keeps state: every function is a function
// of its arguments, so that a wait resumed elsewhere decides the same.
package survival

import (
	"math"
	"slices"
	"time"
)

// Censored is the Hi of an [Interval] known only to be longer than its Lo
// (a wait that timed out, or was cancelled, while the resource was still
// pending).
const Censored = time.Duration(math.MaxInt64)

// Interval is what is known of one past duration: longer than Lo, and at
// most Hi (or [Censored]).
type Interval struct {
	Lo, Hi time.Duration
}

// MaxFit is the most intervals Fit reads: the last ones given. It bounds
// the time Fit takes (quadratic in it at worst) whatever it is given.
const MaxFit = 256

// maxIterations and tolerance end Turnbull's algorithm.
const (
	maxIterations = 100
	tolerance     = 1e-6
)

// Fit returns the distribution the intervals estimate, the last MaxFit of
// them, each mass spread over its interval widened by a box kernel on the
// logarithm of the duration, half as wide as Silverman's rule of thumb for
// many intervals and as wide for few (the factor (1+4/n)/2), so that the
// distribution reaches a little past the durations seen, as the next
// one may. An interval with Hi at most Lo is read as (Lo, Lo+1ns]. The
// distribution's Top is below 1 when intervals that are censored leave
// mass beyond every duration seen done; it is empty when none is given.
func Fit(obs []Interval) Dist {
	n := float64(min(len(obs), MaxFit))
	return fitWith(obs, (1+4/max(n, 1))/2)
}

// fitWith is Fit with the kernel's width k times Silverman's.
func fitWith(obs []Interval, k float64) Dist {
	if len(obs) > MaxFit {
		obs = obs[len(obs)-MaxFit:]
	}
	obs = slices.Clone(obs)
	for i := range obs {
		obs[i].Lo = max(obs[i].Lo, 0)
		if obs[i].Hi <= obs[i].Lo {
			obs[i].Hi = obs[i].Lo + 1
		}
	}
	cells := innermost(obs)
	if len(cells) == 0 {
		return Dist{}
	}
	mass := turnbull(obs, cells)
	return spread(cells, mass, k*bandwidth(cells, mass))
}

// innermost returns Turnbull's innermost intervals of obs, in order: each
// (L, R] where a left end L is followed by a right end R with no other
// end between (a right end comes before a left end at the same time:
// (a, b] and (b, c] do not meet).
func innermost(obs []Interval) []Interval {
	type end struct {
		t     time.Duration
		right bool
	}
	ends := make([]end, 0, 2*len(obs))
	for _, o := range obs {
		ends = append(ends, end{o.Lo, false}, end{o.Hi, true})
	}
	slices.SortFunc(ends, func(a, b end) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		case a.right == b.right:
			return 0
		case a.right:
			return -1
		}
		return 1
	})
	cells := make([]Interval, 0, len(obs))
	for i := 0; i+1 < len(ends); i++ {
		if !ends[i].right && ends[i+1].right {
			cells = append(cells, Interval{ends[i].t, ends[i+1].t})
		}
	}
	return cells
}

// turnbull returns the mass of each cell: the self-consistent estimate,
// from equal masses, to within tolerance or maxIterations.
func turnbull(obs []Interval, cells []Interval) []float64 {
	n, m := len(obs), len(cells)
	in := make([][]int, n) // the cells each interval holds
	var all []int          // their backing array
	for i, o := range obs {
		from := len(all)
		for j, c := range cells {
			if o.Lo <= c.Lo && c.Hi <= o.Hi {
				all = append(all, j)
			}
		}
		in[i] = all[from:len(all):len(all)]
	}
	mass := make([]float64, m)
	for j := range mass {
		mass[j] = 1 / float64(m)
	}
	next := make([]float64, m)
	for range maxIterations {
		clear(next)
		for _, js := range in {
			var total float64
			for _, j := range js {
				total += mass[j]
			}
			if total <= 0 {
				continue
			}
			for _, j := range js {
				next[j] += mass[j] / total / float64(n)
			}
		}
		change := 0.0
		for j := range mass {
			change = max(change, math.Abs(next[j]-mass[j]))
		}
		mass, next = next, mass
		if change < tolerance {
			break
		}
	}
	return mass
}

// spread returns the distribution with each cell's mass spread evenly
// over it, widened by the factor e^a on each side (a box kernel on the
// logarithm of the duration, so that the distribution reaches a little
// past the durations seen, as the next one may); the mass of a cell with
// no end is left out (the distribution's Top is below 1 by it).
func spread(cells []Interval, mass []float64, a float64) Dist {
	type ramp struct {
		lo, hi time.Duration
		mass   float64
	}
	ramps := make([]ramp, 0, len(cells))
	knots := make([]time.Duration, 0, 2*len(cells))
	for j, c := range cells {
		if c.Hi == Censored || mass[j] < 1e-12 {
			continue
		}
		r := ramp{scale(c.Lo, -a), scale(c.Hi, a), mass[j]}
		ramps = append(ramps, r)
		knots = append(knots, r.lo, r.hi)
	}
	slices.Sort(knots)
	knots = slices.Compact(knots)
	d := Dist{At: make([]time.Duration, 0, len(knots)), P: make([]float64, 0, len(knots))}
	for _, t := range knots {
		p := 0.0
		for _, r := range ramps {
			switch {
			case t >= r.hi:
				p += r.mass
			case t > r.lo:
				p += r.mass * float64(t-r.lo) / float64(r.hi-r.lo)
			}
		}
		d.add(t, min(p, 1))
	}
	return d
}

// scale returns t × e^a, within [0, Censored).
func scale(t time.Duration, a float64) time.Duration {
	v := float64(t) * math.Exp(a)
	if v >= float64(Censored/2) {
		return Censored / 2
	}
	return time.Duration(v)
}

// bandwidth returns the half-width, on the logarithm of the duration, of
// the box kernel each cell's mass is spread with: Silverman's rule of
// thumb (1.06 σ n^-1/5 for a Gaussian kernel, √3 times that for a box of
// the same variance), σ the spread of the cells' log-midpoints, at least
// minBandwidth.
func bandwidth(cells []Interval, mass []float64) float64 {
	var w, m1, m2 float64
	for j, c := range cells {
		if c.Hi == Censored || mass[j] <= 0 {
			continue
		}
		x := math.Log(max(float64(c.Lo+c.Hi)/2, 1))
		w += mass[j]
		m1 += mass[j] * x
		m2 += mass[j] * x * x
	}
	if w <= 0 {
		return minBandwidth
	}
	m1 /= w
	sigma := math.Sqrt(max(m2/w-m1*m1, 0))
	n := float64(len(cells))
	return max(math.Sqrt(3)*1.06*sigma*math.Pow(n, -0.2), minBandwidth)
}

// minBandwidth is the least half-width of the box kernel: 2% of a
// duration.
const minBandwidth = 0.02

// Dist is a distribution of durations: its cumulative distribution is
// P[i] at At[i], linear between points, 0 before the first and Top()
// from the last on. At and P do not decrease; two points may share a time
// (a jump). The zero Dist is empty: it knows nothing.
type Dist struct {
	At []time.Duration
	P  []float64
}

// add appends a point, merging it with the last when both are equal.
func (d *Dist) add(t time.Duration, p float64) {
	if n := len(d.At); n > 0 && d.At[n-1] == t && d.P[n-1] == p {
		return
	}
	d.At, d.P = append(d.At, t), append(d.P, p)
}

// Empty reports whether d knows nothing.
func (d Dist) Empty() bool { return len(d.At) == 0 || d.Top() <= 0 }

// Top is the chance that a duration is one the distribution knows: 1 but
// for the waits known only to be longer than every duration seen done.
func (d Dist) Top() float64 {
	if len(d.P) == 0 {
		return 0
	}
	return d.P[len(d.P)-1]
}

// Valid reports whether d is a distribution: points in order, chances
// between 0 and 1 that do not decrease, no NaN. A Dist read from outside
// (a checkpoint) is used only if it is valid.
func (d Dist) Valid() bool {
	if len(d.At) != len(d.P) {
		return false
	}
	for i := range d.At {
		p := d.P[i]
		if d.At[i] < 0 || math.IsNaN(p) || p < 0 || p > 1 {
			return false
		}
		if i > 0 && (d.At[i] < d.At[i-1] || p < d.P[i-1]) {
			return false
		}
	}
	return true
}

// CDF is the chance that a duration is at most t.
func (d Dist) CDF(t time.Duration) float64 {
	n := len(d.At)
	if n == 0 || t < d.At[0] {
		return 0
	}
	if t >= d.At[n-1] {
		return d.P[n-1]
	}
	k, _ := slices.BinarySearch(d.At, t+1) // the first point after t
	lo, hi := d.At[k-1], d.At[k]
	f := float64(t-lo) / float64(hi-lo)
	return d.P[k-1] + f*(d.P[k]-d.P[k-1])
}

// Quantile returns the least duration at which the CDF reaches p, or ok
// false when it never does (p above Top).
func (d Dist) Quantile(p float64) (t time.Duration, ok bool) {
	n := len(d.P)
	if n == 0 || math.IsNaN(p) || p > d.P[n-1]+1e-12 {
		return 0, false
	}
	if p <= d.P[0] {
		return d.At[0], true
	}
	k, _ := slices.BinarySearchFunc(d.P, p, func(a, b float64) int {
		if a < b {
			return -1
		}
		return 1 // the first point at or above p
	})
	k = min(k, n-1)
	lo, hi := d.P[k-1], d.P[k]
	f := 0.0
	if hi > lo {
		f = (p - lo) / (hi - lo)
	}
	return d.At[k-1] + time.Duration(math.Round(f*float64(d.At[k]-d.At[k-1]))), true
}

// MinRegime is the fewest recent intervals that Recent takes for a change
// of regime.
const MinRegime = 3

// Recent returns the intervals of obs (oldest first) that are of the
// present regime: the last k of them if they all lie below every older
// one, or all above, for the largest such k of at least MinRegime with
// at least MinRegime older ones (a service that became faster or slower:
// the older durations no longer say anything of the next); else all of
// them. In a history that does not change, the last MinRegime of n lie
// all below (or all above) the others once in C(n, MinRegime)/2 waits.
func Recent(obs []Interval) []Interval {
	n := len(obs)
	for k := n - MinRegime; k >= MinRegime; k-- {
		older, recent := obs[:n-k], obs[n-k:]
		if below(recent, older) || below(older, recent) {
			return recent
		}
	}
	return obs
}

// below reports whether every interval of a ends before any of b begins.
func below(a, b []Interval) bool {
	hi, lo := time.Duration(0), Censored
	for _, o := range a {
		hi = max(hi, o.Hi)
	}
	for _, o := range b {
		lo = min(lo, o.Lo)
	}
	return hi <= lo
}
