package backoff

import (
	"errors"
	"fmt"
	"time"
)

// Defaults of the Smithy waiters specification, used by a [WaiterSchedule]
// whose MinDelay or MaxDelay is zero.
const (
	DefaultMinDelay = 2 * time.Second
	DefaultMaxDelay = 120 * time.Second
)

// WaiterSchedule is the delay algorithm of a Smithy waiter ("Waiter retries"
// in the Smithy waiters specification): exponential backoff from MinDelay,
// capped at MaxDelay, with jitter drawn from [MinDelay, delay], and a final
// attempt timed to land at the end of the caller's wait budget.
//
// The zero value is the specification's default schedule: a zero MinDelay
// means [DefaultMinDelay], a zero MaxDelay means [DefaultMaxDelay], and a nil
// Jitter means [Uniform]. Durations need not be whole seconds. A schedule is
// a plain value, safe for concurrent use when its Jitter is.
type WaiterSchedule struct {
	// MinDelay is the shortest delay between two attempts and the first
	// delay's upper bound.
	MinDelay time.Duration
	// MaxDelay caps the exponential growth of the delay.
	MaxDelay time.Duration
	// Jitter draws each delay from [MinDelay, delay]; nil means Uniform.
	Jitter Jitter
}

// errInvalidSchedule begins the message of every error of
// [WaiterSchedule.Validate] and [Policy.Validate].
var errInvalidSchedule = errors.New("backoff: invalid schedule")

// Validate reports a schedule that breaks the specification's rules: a
// negative delay, or a MinDelay greater than MaxDelay (after defaults are
// applied). Delays shorter than the specification's one second are allowed
// here; the waiter package enforces the one-second floor on definitions.
func (s WaiterSchedule) Validate() error {
	var errs []error
	if s.MinDelay < 0 {
		errs = append(errs, fmt.Errorf("%w: MinDelay %v is negative", errInvalidSchedule, s.MinDelay))
	}
	if s.MaxDelay < 0 {
		errs = append(errs, fmt.Errorf("%w: MaxDelay %v is negative", errInvalidSchedule, s.MaxDelay))
	}
	if errs == nil {
		if lo, hi := s.bounds(); lo > hi {
			errs = append(errs, fmt.Errorf("%w: MinDelay %v is greater than MaxDelay %v",
				errInvalidSchedule, lo, hi))
		}
	}
	return errors.Join(errs...)
}

// bounds returns MinDelay and MaxDelay with the defaults applied to zero (and,
// for Delay's sake, negative) values.
func (s WaiterSchedule) bounds() (lo, hi time.Duration) {
	lo, hi = s.MinDelay, s.MaxDelay
	if lo <= 0 {
		lo = DefaultMinDelay
	}
	if hi <= 0 {
		hi = DefaultMaxDelay
	}
	return lo, hi
}

// Delay returns how long to wait before retry number attempt (1 is the delay
// before the second call), given the time remaining in the caller's wait
// budget and the reserve to keep for the final call.
//
// The delay grows as MinDelay * 2^(attempt-1) and is capped at MaxDelay (the
// specification's attemptCeiling, computed without overflow for any
// attempt), then drawn by Jitter from [MinDelay, delay]. If waiting that long
// would leave MinDelay or less of the budget, the delay becomes
// remaining - reserve, so that one last call is made at the end of the
// budget instead of none:
//
//   - reserve = MinDelay is the rule as first published;
//   - reserve = 0 is the current specification (2024): the last call starts
//     at the deadline's edge;
//   - the waiter passes the latency it has observed, so the last call
//     finishes just before the deadline.
//
// The final delay may therefore exceed MaxDelay by up to MinDelay. reserve is
// capped at MinDelay (a larger one would skip the final call the rule exists
// to make), so a delay never exceeds remaining - reserve, and a caller that
// adds up its delays never passes its budget minus the reserve.
//
// When remaining <= reserve no attempt fits in the budget: Delay returns 0,
// and the caller must stop and report a timeout rather than call again.
// Otherwise Delay returns a positive duration, never a zero-delay spin.
// Invalid schedules (see [WaiterSchedule.Validate]) do not panic: negative
// delays count as zero (the default) and a MaxDelay below MinDelay is raised
// to it. A negative reserve counts as zero; attempt < 1 counts as 1.
func (s WaiterSchedule) Delay(attempt int, remaining, reserve time.Duration) time.Duration {
	lo, _ := s.bounds()
	return s.delay(attempt, remaining, min(reserve, lo), 0, func(lo, hi time.Duration) time.Duration { return draw(s.Jitter, lo, hi) })
}

// DelayAfterCall is [WaiterSchedule.Delay] for calls that take time, as
// a waiter's do: latency is how long the next call is expected to take,
// and reserve (not capped at MinDelay here) is how long before the end
// of the budget the final call starts, so that it ends before the end.
// The last-attempt check counts the latency: when waiting the drawn delay
// and then making the call would leave no more than MinDelay (or reserve,
// if longer) of the budget, no call could follow that one, so the delay
// becomes remaining - reserve and the next call is the final one. With
// latency 0, a reserve of at most MinDelay and seed 0 it is Delay.
//
// A seed other than 0 draws the jitter from seed and attempt instead of
// s.Jitter: the delay is then a pure function of the arguments, so that a
// wait whose seed is kept (in a checkpoint, or in a durable engine's
// history) replays the same delays. Seeded draws are uniform over
// [MinDelay, delay] and independent from one attempt to the next.
func (s WaiterSchedule) DelayAfterCall(attempt int, remaining, reserve, latency time.Duration, seed uint64) time.Duration {
	jitter := seeded(seed, attempt)
	if seed == 0 {
		jitter = func(lo, hi time.Duration) time.Duration { return draw(s.Jitter, lo, hi) }
	}
	return s.delay(attempt, remaining, reserve, max(latency, 0), jitter)
}

// seeded draws uniformly from [lo, hi] with the attempt's draw of seed.
func seeded(seed uint64, attempt int) func(lo, hi time.Duration) time.Duration {
	return func(lo, hi time.Duration) time.Duration {
		return lo + time.Duration(mix(seed, uint64(attempt))%(uint64(hi-lo)+1))
	}
}

func (s WaiterSchedule) delay(attempt int, remaining, reserve, latency time.Duration, jitter func(lo, hi time.Duration) time.Duration) time.Duration {
	lo, hi := s.bounds()
	hi = max(hi, lo)
	reserve = max(reserve, 0)
	if remaining <= reserve {
		return 0
	}
	delay := lo
	if d := grow(lo, hi, attempt); d > lo {
		delay = min(max(jitter(lo, d), lo), d)
	}
	return s.Within(delay, remaining, reserve, latency)
}

// Within applies the last-attempt rule of [WaiterSchedule.DelayAfterCall]
// to a delay chosen some other way (a schedule learnt from past waits):
// when waiting delay and then making a call that takes latency would leave
// no more than MinDelay (or reserve, if longer) of the remaining budget,
// it returns remaining - reserve, so that the next call is the final one;
// otherwise delay. It returns 0 when remaining <= reserve: no call fits.
func (s WaiterSchedule) Within(delay, remaining, reserve, latency time.Duration) time.Duration {
	lo, _ := s.bounds()
	reserve, latency = max(reserve, 0), max(latency, 0)
	if remaining <= reserve {
		return 0
	}
	if remaining-delay-latency <= max(lo, reserve) {
		delay = remaining - reserve
	}
	return delay
}

// mix returns a well-mixed 64-bit number from seed and n (SplitMix64's
// finalizer applied to their combination): the n-th draw of a seeded
// sequence, computed without state.
func mix(seed, n uint64) uint64 {
	z := seed + (n+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
