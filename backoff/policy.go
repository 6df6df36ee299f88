package backoff

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Policy is a retry backoff strategy: how long to wait before each retry of
// a failed call. The constructors are named after the strategies of the AWS
// SDK for Java's BackoffStrategy, which is what most users know:
//
//	constructor                 delay before retry n, with d = min(base·2^(n-1), max)
//	Immediate                   0
//	Fixed(d)                    Jitter over [0, d]
//	FixedWithoutJitter(d)       d
//	Exponential                 Jitter over [0, d]        ("full jitter")
//	ExponentialHalfJitter       Jitter over [d/2, d]
//	ExponentialWithoutJitter    d
//	Decorrelated                min(max, Jitter over [base, 3·prev])
//
// A Policy holds no state: [Decorrelated], which depends on the previous
// delay, takes it as an argument of [Policy.Delay], so one Policy value can
// serve any number of goroutines (when its Jitter is safe for concurrent use,
// as the default is).
//
// The zero value is [Immediate]. Constructors do not fail; a consumer that
// takes a Policy from a user calls [Policy.Validate] once.
type Policy struct {
	kind   kind
	base   time.Duration
	max    time.Duration
	jitter Jitter
}

type kind uint8

const (
	kindImmediate kind = iota
	kindFixed
	kindFixedNoJitter
	kindExponential
	kindExponentialHalf
	kindExponentialNoJitter
	kindDecorrelated
)

var kindNames = [...]string{
	kindImmediate:           "Immediate",
	kindFixed:               "Fixed",
	kindFixedNoJitter:       "FixedWithoutJitter",
	kindExponential:         "Exponential",
	kindExponentialHalf:     "ExponentialHalfJitter",
	kindExponentialNoJitter: "ExponentialWithoutJitter",
	kindDecorrelated:        "Decorrelated",
}

// Immediate retries at once: every delay is 0 (the Java SDK's
// retryImmediately).
func Immediate() Policy { return Policy{} }

// Fixed waits a delay drawn by the Jitter from [0, d] (the Java SDK's
// fixedDelay, whose jitter surprises many: it never waits longer than d, and
// often much less).
func Fixed(d time.Duration) Policy { return Policy{kind: kindFixed, base: d, max: d} }

// FixedWithoutJitter waits exactly d before every retry.
func FixedWithoutJitter(d time.Duration) Policy {
	return Policy{kind: kindFixedNoJitter, base: d, max: d}
}

// Exponential waits a delay drawn from [0, min(base·2^(n-1), max)] before
// retry n: exponential backoff with full jitter, the AWS SDKs' standard.
func Exponential(base, max time.Duration) Policy {
	return Policy{kind: kindExponential, base: base, max: max}
}

// ExponentialHalfJitter waits a delay drawn from [d/2, d] with
// d = min(base·2^(n-1), max): never less than half the exponential delay.
func ExponentialHalfJitter(base, max time.Duration) Policy {
	return Policy{kind: kindExponentialHalf, base: base, max: max}
}

// ExponentialWithoutJitter waits exactly min(base·2^(n-1), max) before retry n.
func ExponentialWithoutJitter(base, max time.Duration) Policy {
	return Policy{kind: kindExponentialNoJitter, base: base, max: max}
}

// Decorrelated is the decorrelated jitter of the AWS Architecture Blog
// ("Exponential Backoff And Jitter"): min(max, Jitter over [base, 3·prev]),
// where prev is the previous delay (base before the first retry). The caller
// carries prev from one call of [Policy.Delay] to the next.
func Decorrelated(base, max time.Duration) Policy {
	return Policy{kind: kindDecorrelated, base: base, max: max}
}

// WithJitter returns a copy of p that draws its delays through j; nil means
// [Uniform]. Policies without jitter ignore it.
func (p Policy) WithJitter(j Jitter) Policy {
	p.jitter = j
	return p
}

// String returns the policy as its constructor call, e.g.
// "Exponential(50ms, 20s)".
func (p Policy) String() string {
	name := "Policy(?)"
	if int(p.kind) < len(kindNames) {
		name = kindNames[p.kind]
	}
	switch p.kind {
	case kindImmediate:
		return name + "()"
	case kindFixed, kindFixedNoJitter:
		return fmt.Sprintf("%s(%v)", name, p.base)
	default:
		return fmt.Sprintf("%s(%v, %v)", name, p.base, p.max)
	}
}

// Validate reports a policy that cannot mean what its caller intended: a
// negative duration, a zero base for the exponential and decorrelated
// policies (every delay would be 0: use Immediate), or a max below the base.
// Every error names the policy.
func (p Policy) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %v: %s", errInvalidSchedule, p,
			fmt.Sprintf(format, args...)))
	}
	switch {
	case p.base < 0:
		bad("base delay %v is negative", p.base)
	case p.base == 0 && p.kind >= kindExponential:
		bad("base delay is zero, so every delay is zero (use Immediate)")
	}
	if p.max < 0 {
		bad("max delay %v is negative", p.max)
	} else if p.max < p.base {
		bad("max delay %v is less than base delay %v", p.max, p.base)
	}
	return errors.Join(errs...)
}

// Delay returns the wait before retry number attempt (1 is the delay before
// the second call). prev is the delay this policy returned for the previous
// retry, or 0 before the first; only [Decorrelated] reads it.
//
// The result is never negative and never above the policy's max (d for
// Fixed, 0 for Immediate), for every attempt including huge ones (no
// overflow). An invalid policy does not
// panic: negative durations count as 0 and a max below the base is raised
// to it. attempt < 1 counts as 1.
func (p Policy) Delay(attempt int, prev time.Duration) time.Duration {
	base := max(p.base, 0)
	limit := max(p.max, base)
	switch p.kind {
	case kindFixed:
		return draw(p.jitter, 0, base)
	case kindFixedNoJitter:
		return base
	case kindExponential:
		return draw(p.jitter, 0, grow(base, limit, attempt))
	case kindExponentialHalf:
		d := grow(base, limit, attempt)
		return draw(p.jitter, d/2, d)
	case kindExponentialNoJitter:
		return grow(base, limit, attempt)
	case kindDecorrelated:
		prev = max(prev, base)
		hi := time.Duration(math.MaxInt64) // 3·prev, saturated
		if prev <= math.MaxInt64/3 {
			hi = 3 * prev
		}
		return min(draw(p.jitter, base, hi), limit)
	default:
		return 0
	}
}
