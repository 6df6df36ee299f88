package retry_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestAdaptiveRateEvolution walks the CUBIC limiter through responses at
// chosen instants and checks its state against the formulas by hand.
func TestAdaptiveRateEvolution(t *testing.T) {
	m := clocktest.NewMock()
	a, err := retry.NewAdaptive(retry.WithClock(m), retry.WithJitter(backoff.High), retry.WithMaxAttempts(100))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	at := func(sec float64) { m.Set(epoch.Add(time.Duration(sec * float64(time.Second)))) }
	succeed := func(sec float64) {
		at(sec)
		tok, _ := a.AcquireInitialToken(ctx, "")
		a.RecordSuccess(tok)
	}
	throttled := func(sec float64) retry.Token {
		at(sec)
		tok, _ := a.AcquireInitialToken(ctx, "")
		next, err := a.RefreshToken(ctx, tok, throttle{})
		if err != nil {
			t.Fatal(err)
		}
		return next
	}

	// Two responses in the first half-second bucket, one in the next.
	succeed(0.0)
	succeed(0.5) // closes bucket [0, 0.5): 2 requests → 4/s; m = 0.8·4
	if r := a.Rate(); r.Enabled || !near(r.MeasuredRate, 3.2) {
		t.Fatalf("after 2 requests: %+v, want measured 3.2/s and the limiter off", r)
	}
	succeed(1.0) // 1 request in [0.5, 1.0) → 2/s; m = 0.8·2 + 0.2·3.2
	m1 := 0.8*2 + 0.2*3.2
	if r := a.Rate(); !near(r.MeasuredRate, m1) {
		t.Fatalf("measured %v, want %v", r.MeasuredRate, m1)
	}

	// A throttle: W = m, rate = 0.7·W, and the limiter turns on.
	throttled(1.2)
	r := a.Rate()
	if !r.Enabled || !near(r.LastMaxRate, m1) || !near(r.FillRate, 0.7*m1) || !near(r.MaxCapacity, 0.7*m1) {
		t.Fatalf("after the throttle: %+v, want W=%v, rate %v", r, m1, 0.7*m1)
	}

	// A success 0.8s later grows the rate along the cubic curve.
	succeed(2.0)
	m2 := 0.8*(2/1.0) + 0.2*m1 // 2 requests in [1.0, 2.0)
	k := math.Cbrt(m1 * (1 - 0.7) / 0.4)
	cubic := 0.4*math.Pow(2.0-1.2-k, 3) + m1
	r = a.Rate()
	if !near(r.MeasuredRate, m2) || !near(r.FillRate, math.Min(cubic, 2*m2)) {
		t.Fatalf("after a success: %+v, want measured %v, rate %v", r, m2, math.Min(cubic, 2*m2))
	}

	// Much later, the rate is capped at twice the measured send rate.
	succeed(60.0)
	m3 := 0.8*(1/58.0) + 0.2*m2
	if r = a.Rate(); !near(r.FillRate, math.Max(math.Min(0.4*math.Pow(60-1.2-k, 3)+m1, 2*m3), 0.5)) {
		t.Fatalf("at 60s: %+v", r)
	}
}

// TestAdaptiveWaitsForCapacity: once throttled, attempts at the same
// instant queue behind the fill rate.
func TestAdaptiveWaitsForCapacity(t *testing.T) {
	m := clocktest.NewMock()
	a, _ := retry.NewAdaptive(retry.WithClock(m), retry.WithJitter(backoff.Low), retry.WithMaxAttempts(100),
		retry.WithThrottleBackoff(backoff.Immediate()))
	ctx := context.Background()
	m.Set(epoch.Add(time.Second))
	for range 4 {
		tok, _ := a.AcquireInitialToken(ctx, "")
		a.RecordSuccess(tok)
	}
	m.Set(epoch.Add(1500 * time.Millisecond))
	tok, _ := a.AcquireInitialToken(ctx, "")
	if _, err := a.RefreshToken(ctx, tok, throttle{}); err != nil {
		t.Fatal(err)
	}
	r := a.Rate()
	if !r.Enabled {
		t.Fatalf("not enabled after a throttle: %+v", r)
	}
	// Capacity left now, then each further attempt waits 1/rate longer.
	capacity, rate := r.Capacity, r.FillRate
	var prev time.Duration
	for i := 1; i <= 4; i++ {
		tok, _ := a.AcquireInitialToken(ctx, "")
		deficit := float64(i) - capacity
		want := time.Duration(0)
		if deficit > 0 {
			want = time.Duration(deficit / rate * float64(time.Second))
		}
		if d := tok.Delay(); d < prev || absDur(d-want) > time.Microsecond {
			t.Errorf("attempt %d waits %v, want %v (capacity %v, rate %v/s)", i, d, want, capacity, rate)
		} else {
			prev = d
		}
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// TestAdaptiveDo: the loop works with the adaptive strategy and stays off
// the limiter while nothing is throttled.
func TestAdaptiveDo(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		a, _ := retry.NewAdaptive(retry.WithClock(clocktest.Clock()), retry.WithJitter(backoff.High))
		calls := 0
		start := time.Now()
		v, err := retry.Do(t.Context(), a, func(ctx context.Context) (int, error) {
			if calls++; calls == 1 {
				return 0, transient{}
			}
			return 5, nil
		})
		if v != 5 || err != nil || time.Since(start) != 50*ms || a.Rate().Enabled {
			t.Fatalf("Do = %v, %v after %v; rate %+v", v, err, time.Since(start), a.Rate())
		}
	})
}

// epoch is when a new clocktest.Mock starts.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
