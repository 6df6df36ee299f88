package backoff_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
)

const ms = time.Millisecond

func TestPolicyDelay(t *testing.T) {
	exp := backoff.Exponential(50*ms, 20*s)
	tests := []struct {
		policy  backoff.Policy
		jitter  backoff.Jitter
		attempt int
		prev    time.Duration
		want    time.Duration
	}{
		{backoff.Immediate(), backoff.High, 1, 0, 0},
		{backoff.Policy{}, backoff.High, 7, 0, 0},

		{backoff.Fixed(s), backoff.High, 1, 0, s},
		{backoff.Fixed(s), backoff.Low, 9, 0, 0},
		{backoff.Fixed(s), backoff.Midpoint, 9, 0, 500 * ms},
		{backoff.FixedWithoutJitter(s), backoff.Low, 9, 0, s},

		{exp, backoff.High, 1, 0, 50 * ms},
		{exp, backoff.High, 2, 0, 100 * ms},
		{exp, backoff.High, 9, 0, 12800 * ms},
		{exp, backoff.High, 10, 0, 20 * s},
		{exp, backoff.High, math.MaxInt, 0, 20 * s},
		{exp, backoff.High, 0, 0, 50 * ms},
		{exp, backoff.Low, 5, 0, 0},
		{exp, backoff.Midpoint, 3, 0, 100 * ms},

		{backoff.ExponentialHalfJitter(50*ms, 20*s), backoff.Low, 1, 0, 25 * ms},
		{backoff.ExponentialHalfJitter(50*ms, 20*s), backoff.Low, 3, 0, 100 * ms},
		{backoff.ExponentialHalfJitter(50*ms, 20*s), backoff.High, 3, 0, 200 * ms},
		{backoff.ExponentialHalfJitter(50*ms, 20*s), backoff.Low, 1 << 40, 0, 10 * s},

		{backoff.ExponentialWithoutJitter(s, 10*s), backoff.Low, 1, 0, s},
		{backoff.ExponentialWithoutJitter(s, 10*s), backoff.Low, 4, 0, 8 * s},
		{backoff.ExponentialWithoutJitter(s, 10*s), backoff.Low, 5, 0, 10 * s},

		{backoff.Decorrelated(s, 10*s), backoff.High, 1, 0, 3 * s},
		{backoff.Decorrelated(s, 10*s), backoff.High, 2, 3 * s, 9 * s},
		{backoff.Decorrelated(s, 10*s), backoff.High, 3, 9 * s, 10 * s},
		{backoff.Decorrelated(s, 10*s), backoff.Low, 3, 9 * s, s},
		{backoff.Decorrelated(s, 10*s), backoff.Midpoint, 2, 3 * s, 5 * s},
		{backoff.Decorrelated(s, math.MaxInt64), backoff.High, 2, math.MaxInt64 / 2, math.MaxInt64},

		// Invalid policies do not panic and stay non-negative.
		{backoff.Exponential(-s, -s), backoff.High, 3, 0, 0},
		{backoff.Exponential(2*s, s), backoff.High, 3, 0, 2 * s},
		{backoff.Fixed(-s), backoff.High, 1, 0, 0},
		{backoff.Decorrelated(s, 10*s), backoff.High, 1, -s, 3 * s},
	}
	for _, tt := range tests {
		p := tt.policy.WithJitter(tt.jitter)
		if got := p.Delay(tt.attempt, tt.prev); got != tt.want {
			t.Errorf("%v.Delay(%d, %v) = %v, want %v", tt.policy, tt.attempt, tt.prev, got, tt.want)
		}
	}
}

// TestPolicyDecorrelatedSequence carries prev from call to call, as a
// retry loop does, and checks each delay stays in [base, max].
func TestPolicyDecorrelatedSequence(t *testing.T) {
	p := backoff.Decorrelated(100*ms, 5*s).WithJitter(backoff.Seeded(7))
	var prev time.Duration
	sawMax := false
	for attempt := 1; attempt <= 100; attempt++ {
		d := p.Delay(attempt, prev)
		if d < 100*ms || d > 5*s {
			t.Fatalf("Delay(%d, %v) = %v, outside [100ms, 5s]", attempt, prev, d)
		}
		if d > 3*max(prev, 100*ms) {
			t.Fatalf("Delay(%d, %v) = %v, more than 3·prev", attempt, prev, d)
		}
		sawMax = sawMax || d == 5*s
		prev = d
	}
	if !sawMax {
		t.Error("100 decorrelated delays never reached the cap: the growth is broken")
	}
}

func TestPolicyString(t *testing.T) {
	for _, tt := range []struct {
		p    backoff.Policy
		want string
	}{
		{backoff.Immediate(), "Immediate()"},
		{backoff.Fixed(s), "Fixed(1s)"},
		{backoff.FixedWithoutJitter(15 * s), "FixedWithoutJitter(15s)"},
		{backoff.Exponential(50*ms, 20*s), "Exponential(50ms, 20s)"},
		{backoff.ExponentialHalfJitter(s, 8*s), "ExponentialHalfJitter(1s, 8s)"},
		{backoff.ExponentialWithoutJitter(s, 8*s), "ExponentialWithoutJitter(1s, 8s)"},
		{backoff.Decorrelated(s, 30*s), "Decorrelated(1s, 30s)"},
		{backoff.Exponential(s, 2*s).WithJitter(nil), "Exponential(1s, 2s)"},
		{backoff.ExponentialWithoutJitter(s, 2*s).WithJitter(nil), "ExponentialWithoutJitter(1s, 2s)"},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		policy backoff.Policy
		want   string // substring of the error, "" for valid
	}{
		{backoff.Immediate(), ""},
		{backoff.Fixed(0), ""},
		{backoff.Fixed(s), ""},
		{backoff.Exponential(50*ms, 20*s), ""},
		{backoff.Decorrelated(s, s), ""},
		{backoff.Fixed(-s), "base delay -1s is negative"},
		{backoff.Exponential(0, s), "base delay is zero"},
		{backoff.Decorrelated(0, s), "base delay is zero"},
		{backoff.Exponential(s, -s), "max delay -1s is negative"},
		{backoff.ExponentialHalfJitter(2*s, s), "max delay 1s is less than base delay 2s"},
	}
	for _, tt := range tests {
		err := tt.policy.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v.Validate() = %v, want nil", tt.policy, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v.Validate() = %v, want an error containing %q", tt.policy, err, tt.want)
		case err != nil && !strings.HasPrefix(err.Error(), "backoff: invalid schedule: "):
			t.Errorf("%v.Validate() = %v, does not say the package and the problem", tt.policy, err)
		case err != nil && !strings.Contains(err.Error(), tt.policy.String()):
			t.Errorf("%v.Validate() = %v, does not name the policy", tt.policy, err)
		}
	}
}

// TestPolicyMonotoneCeiling: exponential policies at the high end of their
// jitter never shrink as attempts grow, and never pass their max.
func TestPolicyMonotoneCeiling(t *testing.T) {
	for _, tt := range []struct {
		p   backoff.Policy
		max time.Duration
	}{
		{backoff.Exponential(50*ms, 20*s), 20 * s},
		{backoff.ExponentialHalfJitter(time.Nanosecond, math.MaxInt64), math.MaxInt64},
		{backoff.ExponentialWithoutJitter(3*s, 3*s), 3 * s},
	} {
		p := tt.p.WithJitter(backoff.High)
		var prev time.Duration
		for attempt := 1; attempt < 200; attempt++ {
			d := p.Delay(attempt, prev)
			if d < prev || d > tt.max {
				t.Fatalf("%v.Delay(%d) = %v after %v (max %v)", p, attempt, d, prev, tt.max)
			}
			prev = d
		}
		if prev != tt.max {
			t.Errorf("%v: the delays never reached the max %v (last %v)", p, tt.max, prev)
		}
	}
}

// FuzzPolicy checks every policy's bounds for arbitrary inputs.
func FuzzPolicy(f *testing.F) {
	f.Add(uint8(3), int64(50*ms), int64(20*s), 1, int64(0), uint8(0))
	f.Add(uint8(6), int64(s), int64(math.MaxInt64), math.MaxInt, int64(math.MaxInt64), uint8(1))
	f.Add(uint8(4), int64(-1), int64(-1), -1, int64(-1), uint8(3))
	f.Fuzz(func(t *testing.T, k uint8, base, maxDelay int64, attempt int, prev int64, mode uint8) {
		b, m := time.Duration(base), time.Duration(maxDelay)
		policies := []struct {
			p     backoff.Policy
			limit time.Duration // the policy's max (an invalid one's is raised to its base)
		}{
			{backoff.Immediate(), 0},
			{backoff.Fixed(b), max(b, 0)},
			{backoff.FixedWithoutJitter(b), max(b, 0)},
			{backoff.Exponential(b, m), max(m, b, 0)},
			{backoff.ExponentialHalfJitter(b, m), max(m, b, 0)},
			{backoff.ExponentialWithoutJitter(b, m), max(m, b, 0)},
			{backoff.Decorrelated(b, m), max(m, b, 0)},
		}
		pl := policies[int(k)%len(policies)]
		jitters := []backoff.Jitter{
			backoff.Low, backoff.High, backoff.Midpoint, nil, backoff.Seeded(uint64(prev)),
		}
		p := pl.p.WithJitter(jitters[int(mode)%len(jitters)])
		d := p.Delay(attempt, time.Duration(prev))
		limit := pl.limit
		if d < 0 || d > limit {
			t.Fatalf("%v.Delay(%d, %v) = %v, outside [0, %v]", p, attempt, time.Duration(prev), d, limit)
		}
	})
}
