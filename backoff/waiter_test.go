package backoff_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/backoff"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const s = time.Second

func TestWaiterScheduleDelay(t *testing.T) {
	const forever = time.Duration(math.MaxInt64)
	spec := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s}
	tests := []struct {
		name      string
		sched     backoff.WaiterSchedule
		jitter    backoff.Jitter
		attempt   int
		remaining time.Duration
		reserve   time.Duration
		want      time.Duration
	}{
		{"first retry is MinDelay", spec, backoff.High, 1, forever, 0, 2 * s},
		{"doubles", spec, backoff.High, 2, forever, 0, 4 * s},
		{"doubles again", spec, backoff.High, 3, forever, 0, 8 * s},
		{"below ceiling", spec, backoff.High, 6, forever, 0, 64 * s},
		{"above ceiling", spec, backoff.High, 7, forever, 0, 120 * s},
		{"huge attempt", spec, backoff.High, 1 << 40, forever, 0, 120 * s},
		{"max int attempt", spec, backoff.High, math.MaxInt, forever, 0, 120 * s},
		{"attempt zero counts as one", spec, backoff.High, 0, forever, 0, 2 * s},
		{"negative attempt counts as one", spec, backoff.High, -5, forever, 0, 2 * s},
		{"low jitter is MinDelay", spec, backoff.Low, 9, forever, 0, 2 * s},
		{"midpoint of [2s,8s]", spec, backoff.Midpoint, 3, forever, 0, 5 * s},
		{"zero value is the spec default", backoff.WaiterSchedule{}, backoff.High, 7, forever, 0, 120 * s},
		{"sub-second", backoff.WaiterSchedule{MinDelay: 100 * time.Millisecond, MaxDelay: time.Second}, backoff.High, 4, forever, 0, 800 * time.Millisecond},
		{"sub-second capped", backoff.WaiterSchedule{MinDelay: 100 * time.Millisecond, MaxDelay: time.Second}, backoff.High, 5, forever, 0, time.Second},
		{"fractional seconds", backoff.WaiterSchedule{MinDelay: 1500 * time.Millisecond, MaxDelay: 5 * s}, backoff.High, 2, forever, 0, 3 * s},
		{"fixed schedule min == max", backoff.WaiterSchedule{MinDelay: 15 * s, MaxDelay: 15 * s}, backoff.High, 30, forever, 0, 15 * s},
		{"huge MaxDelay no overflow", backoff.WaiterSchedule{MinDelay: 1, MaxDelay: forever}, backoff.High, 63, forever, 0, 1 << 62},
		{"huge MaxDelay beyond ceiling", backoff.WaiterSchedule{MinDelay: 1, MaxDelay: forever}, backoff.High, 64, forever, 0, forever},

		// The last-attempt rule: 10s left, a draw of 8s would leave 2s <= MinDelay.
		{"last attempt, current spec", spec, backoff.High, 3, 10 * s, 0, 10 * s},
		{"last attempt, seed text", spec, backoff.High, 3, 10 * s, 2 * s, 8 * s},
		{"last attempt, observed latency", spec, backoff.High, 3, 10 * s, 300 * time.Millisecond, 9700 * time.Millisecond},
		{"reserve capped at MinDelay", spec, backoff.High, 3, 10 * s, 5 * s, 8 * s},
		{"negative reserve is zero", spec, backoff.High, 3, 10 * s, -s, 10 * s},
		{"rule not triggered", spec, backoff.High, 3, 10*s + 1, 0, 8 * s},
		{"remaining below the first delay", spec, backoff.High, 1, time.Nanosecond, 0, time.Nanosecond},

		// No attempt left.
		{"remaining equals reserve", spec, backoff.High, 3, 2 * s, 2 * s, 0},
		{"remaining zero", spec, backoff.High, 3, 0, 0, 0},
		{"remaining negative", spec, backoff.High, 3, -s, 0, 0},

		// Invalid schedules do not panic.
		{"negative MinDelay is the default", backoff.WaiterSchedule{MinDelay: -s, MaxDelay: 120 * s}, backoff.High, 1, forever, 0, 2 * s},
		{"MaxDelay below MinDelay is raised", backoff.WaiterSchedule{MinDelay: 10 * s, MaxDelay: 5 * s}, backoff.High, 4, forever, 0, 10 * s},
		{"jitter out of range is clamped high", spec, func(lo, hi time.Duration) time.Duration { return hi * 10 }, 2, forever, 0, 4 * s},
		{"jitter out of range is clamped low", spec, func(lo, hi time.Duration) time.Duration { return -hi }, 2, forever, 0, 2 * s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sched := tt.sched
			sched.Jitter = tt.jitter
			if got := sched.Delay(tt.attempt, tt.remaining, tt.reserve); got != tt.want {
				t.Errorf("Delay(%d, %v, %v) = %v, want %v", tt.attempt, tt.remaining, tt.reserve, got, tt.want)
			}
		})
	}
}

// scripted returns a Jitter that answers with the given values in order and
// fails the test when a value falls outside the range it is asked for.
func scripted(t *testing.T, values ...time.Duration) backoff.Jitter {
	return func(lo, hi time.Duration) time.Duration {
		t.Helper()
		if len(values) == 0 {
			t.Fatalf("jitter called more often than scripted (range [%v, %v])", lo, hi)
		}
		v := values[0]
		values = values[1:]
		if v < lo || v > hi {
			t.Fatalf("scripted value %v outside the range [%v, %v] the schedule asked for", v, lo, hi)
		}
		return v
	}
}

// TestWaiterScheduleSpecExample replays the example table of the Smithy
// waiters specification (min 2s, max 120s, max wait 300s, calls taking no
// time), feeding the table's random draws through the Jitter.
func TestWaiterScheduleSpecExample(t *testing.T) {
	// The first retry's range is [2s, 2s]: no draw is needed for it.
	draws := []time.Duration{3 * s, 6 * s, 6 * s, 22 * s, 62 * s, 43 * s, 24 * s, 71 * s, 42 * s, 9 * s, 6 * s, 2 * s}
	for _, tc := range []struct {
		name    string
		reserve time.Duration
		want    []time.Duration // the delays, the last one set by the last-attempt rule
	}{
		{"seed text (reserve = MinDelay)", 2 * s, []time.Duration{2 * s, 3 * s, 6 * s, 6 * s, 22 * s, 62 * s, 43 * s, 24 * s, 71 * s, 42 * s, 9 * s, 6 * s, 2 * s}},
		{"current spec (reserve = 0)", 0, []time.Duration{2 * s, 3 * s, 6 * s, 6 * s, 22 * s, 62 * s, 43 * s, 24 * s, 71 * s, 42 * s, 9 * s, 6 * s, 4 * s}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sched := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s, Jitter: scripted(t, draws...)}
			const budget = 300 * s
			var elapsed time.Duration
			var got []time.Duration
			for attempt := 1; ; attempt++ {
				d := sched.Delay(attempt, budget-elapsed, tc.reserve)
				if d == 0 {
					break
				}
				got = append(got, d)
				elapsed += d
				if elapsed > budget-tc.reserve {
					t.Fatalf("after retry %d elapsed %v, past the budget %v minus reserve %v", attempt, elapsed, budget, tc.reserve)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("delays = %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("delay %d = %v, want %v", i+1, got[i], tc.want[i])
				}
			}
			if elapsed != budget-tc.reserve {
				t.Errorf("last call at %v, want %v (budget minus reserve)", elapsed, budget-tc.reserve)
			}
		})
	}
}

// TestWaiterScheduleBudget runs the spec's scenario under many jitters and
// checks the schedule's promises at every step.
func TestWaiterScheduleBudget(t *testing.T) {
	const budget = 300 * s
	jitters := map[string]backoff.Jitter{"low": backoff.Low, "high": backoff.High, "midpoint": backoff.Midpoint}
	for seed := range uint64(50) {
		jitters[fmt.Sprintf("seed %d", seed)] = backoff.Seeded(seed)
	}
	for name, j := range jitters {
		for _, reserve := range []time.Duration{0, 700 * time.Millisecond, 2 * s} {
			sched := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s, Jitter: j}
			var elapsed time.Duration
			attempt := 1
			for ; ; attempt++ {
				remaining := budget - elapsed
				d := sched.Delay(attempt, remaining, reserve)
				if d == 0 {
					break
				}
				final := d == remaining-reserve
				if !final && (d < 2*s || d > 120*s) {
					t.Fatalf("%s, reserve %v: delay %d = %v, outside [2s, 120s]", name, reserve, attempt, d)
				}
				elapsed += d
			}
			if elapsed != budget-reserve {
				t.Errorf("%s, reserve %v: last call at %v, want %v", name, reserve, elapsed, budget-reserve)
			}
			if attempt < 3 {
				t.Errorf("%s: only %d attempts in 300s", name, attempt)
			}
		}
	}
}

// TestWaiterScheduleCeilingMonotone: with the jitter at its high end, the
// delay never shrinks as attempts grow (until the last-attempt rule).
func TestWaiterScheduleCeilingMonotone(t *testing.T) {
	for _, sched := range []backoff.WaiterSchedule{
		{MinDelay: 2 * s, MaxDelay: 120 * s},
		{MinDelay: time.Millisecond, MaxDelay: time.Hour},
		{MinDelay: 3 * s, MaxDelay: 3 * s},
		{MinDelay: 1, MaxDelay: math.MaxInt64},
	} {
		sched.Jitter = backoff.High
		prev := time.Duration(0)
		for attempt := 1; attempt < 200; attempt++ {
			d := sched.Delay(attempt, math.MaxInt64, 0)
			if d < prev || d > sched.MaxDelay || d < sched.MinDelay {
				t.Fatalf("%+v: Delay(%d) = %v after %v", sched, attempt, d, prev)
			}
			prev = d
		}
	}
}

func TestWaiterScheduleValidate(t *testing.T) {
	tests := []struct {
		sched backoff.WaiterSchedule
		ok    bool
	}{
		{backoff.WaiterSchedule{}, true},
		{backoff.WaiterSchedule{MinDelay: 100 * time.Millisecond}, true},
		{backoff.WaiterSchedule{MinDelay: 5 * s, MaxDelay: 5 * s}, true},
		{backoff.WaiterSchedule{MinDelay: -1}, false},
		{backoff.WaiterSchedule{MaxDelay: -1}, false},
		{backoff.WaiterSchedule{MinDelay: 10 * s, MaxDelay: 5 * s}, false},
		{backoff.WaiterSchedule{MinDelay: 200 * s}, false}, // above the default MaxDelay
	}
	for _, tt := range tests {
		err := tt.sched.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%+v.Validate() = %v, want ok=%v", tt.sched, err, tt.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "backoff: invalid schedule: ") {
			t.Errorf("%+v.Validate() = %v, does not say the package and the problem", tt.sched, err)
		}
	}
	err := backoff.WaiterSchedule{MinDelay: -1, MaxDelay: -2}.Validate()
	if got := err.Error(); got != "backoff: invalid schedule: MinDelay -1ns is negative\nbackoff: invalid schedule: MaxDelay -2ns is negative" {
		t.Errorf("Validate() reports %q, want both problems", got)
	}
}

// FuzzWaiterSchedule checks the schedule's invariants for arbitrary inputs:
// never negative, 0 exactly when no attempt fits, never past the budget
// minus the reserve, and within [MinDelay, MaxDelay] unless it is the final
// delay.
func FuzzWaiterSchedule(f *testing.F) {
	f.Add(int64(2*s), int64(120*s), 1, int64(300*s), int64(0), uint8(0))
	f.Add(int64(1), int64(math.MaxInt64), math.MaxInt, int64(math.MaxInt64), int64(math.MaxInt64), uint8(1))
	f.Add(int64(-5), int64(-7), -3, int64(-1), int64(-1), uint8(2))
	f.Add(int64(10*s), int64(s), 4, int64(11*s), int64(s), uint8(3))
	f.Fuzz(func(t *testing.T, minDelay, maxDelay int64, attempt int, remaining, reserve int64, mode uint8) {
		j := []backoff.Jitter{backoff.Low, backoff.High, backoff.Midpoint, nil, backoff.Seeded(uint64(remaining))}[int(mode)%5]
		sched := backoff.WaiterSchedule{MinDelay: time.Duration(minDelay), MaxDelay: time.Duration(maxDelay), Jitter: j}
		rem, res := time.Duration(remaining), time.Duration(reserve)
		d := sched.Delay(attempt, rem, res)

		lo, hi := sched.MinDelay, sched.MaxDelay
		if lo <= 0 {
			lo = backoff.DefaultMinDelay
		}
		if hi <= 0 {
			hi = backoff.DefaultMaxDelay
		}
		hi = max(hi, lo)
		res = min(max(res, 0), lo)
		switch {
		case d < 0:
			t.Fatalf("Delay = %v, negative", d)
		case (d == 0) != (rem <= res):
			t.Fatalf("Delay(%d, %v, %v) = %v: zero must mean exactly 'remaining <= reserve'", attempt, rem, res, d)
		case d > 0 && d > rem-res:
			t.Fatalf("Delay(%d, %v, %v) = %v: past the budget minus reserve", attempt, rem, res, d)
		case d > 0 && d != rem-res && (d < lo || d > hi):
			t.Fatalf("Delay(%d, %v, %v) = %v: outside [%v, %v]", attempt, rem, res, d, lo, hi)
		}
	})
}

// TestDelayAfterCallMakesTheFinalCall: with calls that take time, the
// last-attempt check counts their latency, so that whatever the latency
// and the jitter, the last call starts exactly reserve before the end of
// the budget and ends before it. (With Delay's check, 1.5s calls in a
// 58.5s budget could start their last call 2.5s before the end, leaving
// 1s: no room for the final call.)
func TestDelayAfterCallMakesTheFinalCall(t *testing.T) {
	sched := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s}
	for _, latency := range []time.Duration{time.Millisecond, 50 * time.Millisecond, 300 * time.Millisecond, s, 1500 * time.Millisecond, 3 * s} {
		reserve := latency*3/2 + 20*time.Millisecond
		for _, budget := range []time.Duration{58500 * time.Millisecond, 5 * time.Minute, 20 * time.Minute} {
			for seed := uint64(1); seed <= 200; seed++ {
				now := latency // the first call
				last := time.Duration(0)
				for attempt := 1; ; attempt++ {
					d := sched.DelayAfterCall(attempt, budget-now, reserve, latency, seed)
					if d == 0 {
						break
					}
					if d < 0 {
						t.Fatalf("latency %v, budget %v, seed %d: delay %d = %v", latency, budget, seed, attempt, d)
					}
					last = now + d
					now = last + latency
				}
				if last != budget-reserve {
					t.Fatalf("latency %v, budget %v, seed %d: last call at %v, want %v (the budget minus the reserve)", latency, budget, seed, last, budget-reserve)
				}
			}
		}
	}
}

// TestDelayAfterCallIsDelay: with no latency, a reserve of at most
// MinDelay and seed 0, DelayAfterCall is Delay (the specification's rule),
// drawing through the schedule's Jitter.
func TestDelayAfterCallIsDelay(t *testing.T) {
	for n := uint64(1); n < 500; n++ {
		attempt := int(n%12) + 1
		remaining := time.Duration(n*7919%300_000) * time.Millisecond
		reserve := time.Duration(n%3) * s
		for name, jitter := range map[string]func() backoff.Jitter{
			"low":      func() backoff.Jitter { return backoff.Low },
			"high":     func() backoff.Jitter { return backoff.High },
			"midpoint": func() backoff.Jitter { return backoff.Midpoint },
			"seeded":   func() backoff.Jitter { return backoff.Seeded(n) },
		} {
			a := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s, Jitter: jitter()}
			b := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s, Jitter: jitter()}
			got := a.DelayAfterCall(attempt, remaining, reserve, 0, 0)
			want := b.Delay(attempt, remaining, reserve)
			if got != want {
				t.Fatalf("%s jitter: DelayAfterCall(%d, %v, %v, 0, 0) = %v, Delay = %v",
					name, attempt, remaining, reserve, got, want)
			}
		}
	}
}

// TestDelayAfterCallSeeded: a seed other than 0 makes the delay a pure
// function of the arguments, whatever the schedule's Jitter; the draws are
// uniform over [MinDelay, delay] and independent from one attempt to the
// next.
func TestDelayAfterCallSeeded(t *testing.T) {
	const forever = time.Duration(math.MaxInt64)
	low := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s, Jitter: backoff.Low}
	high := backoff.WaiterSchedule{MinDelay: 2 * s, MaxDelay: 120 * s, Jitter: backoff.High}
	const seeds = 2000
	var sum, sumX, sumY, sumXY, sumXX, sumYY float64
	lowest, highest := forever, time.Duration(0)
	for seed := uint64(1); seed <= seeds; seed++ {
		d := low.DelayAfterCall(5, forever, 0, 0, seed) // drawn from [2s, 32s]
		again := low.DelayAfterCall(5, forever, 0, 0, seed)
		other := high.DelayAfterCall(5, forever, 0, 0, seed)
		if again != d || other != d {
			t.Fatalf("seed %d: %v, then %v, and %v with another Jitter; want the same delay",
				seed, d, again, other)
		}
		if d < 2*s || d > 32*s {
			t.Fatalf("seed %d: %v, outside [2s, 32s]", seed, d)
		}
		lowest, highest = min(lowest, d), max(highest, d)
		sum += d.Seconds()
		x, y := low.DelayAfterCall(4, forever, 0, 0, seed).Seconds(), d.Seconds()
		sumX, sumY, sumXY, sumXX, sumYY = sumX+x, sumY+y, sumXY+x*y, sumXX+x*x, sumYY+y*y
	}
	if mean := sum / seeds; lowest > 3*s || highest < 31*s || math.Abs(mean-17) > 1 {
		t.Errorf("draws over [2s, 32s] span [%v, %v] with mean %.2fs; want them uniform (mean 17s)",
			lowest, highest, mean)
	}
	n := float64(seeds)
	corr := (n*sumXY - sumX*sumY) / math.Sqrt((n*sumXX-sumX*sumX)*(n*sumYY-sumY*sumY))
	if math.Abs(corr) > 0.1 {
		t.Errorf("the draws of attempts 4 and 5 correlate (%.3f): want them independent", corr)
	}
}
