package backoff_test

import (
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
)

var sinkDelay time.Duration

// BenchmarkWaiterScheduleDelay measures one delay of the default schedule
// with the default (uniform) jitter, cycling through attempts 1..16 so both
// sides of the ceiling and the last-attempt rule are exercised.
func BenchmarkWaiterScheduleDelay(b *testing.B) {
	sched := backoff.WaiterSchedule{MinDelay: 2 * time.Second, MaxDelay: 120 * time.Second}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		attempt := i&15 + 1
		sinkDelay = sched.Delay(attempt, time.Duration(attempt)*20*time.Second, 0)
	}
}

func BenchmarkPolicyDelay(b *testing.B) {
	for _, p := range []backoff.Policy{
		backoff.Immediate(),
		backoff.Fixed(time.Second),
		backoff.FixedWithoutJitter(time.Second),
		backoff.Exponential(50*time.Millisecond, 20*time.Second),
		backoff.ExponentialHalfJitter(50*time.Millisecond, 20*time.Second),
		backoff.ExponentialWithoutJitter(50*time.Millisecond, 20*time.Second),
		backoff.Decorrelated(50*time.Millisecond, 20*time.Second),
	} {
		b.Run(p.String(), func(b *testing.B) {
			b.ReportAllocs()
			var prev time.Duration
			for i := 0; b.Loop(); i++ {
				prev = p.Delay(i&15+1, prev)
			}
			sinkDelay = prev
		})
	}
}
