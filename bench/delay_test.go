package bench

import (
	"testing"
	"time"

	"github.com/aws/smithy-go/waiter"

	"github.com/waitable/waitable/backoff"
)

var sinkDelay time.Duration

// BenchmarkWaiterDelay compares one waiter delay computation: Waitable's
// backoff.WaiterSchedule.Delay (math/rand/v2 jitter) against
// smithy-go/waiter.ComputeDelay (crypto/rand jitter), the function the AWS
// SDK for Go v2's generated waiters call. Both get the same inputs: the
// spec's default 2s/120s schedule, attempts cycling 1..16, and a remaining
// time that sometimes triggers the last-attempt rule.
func BenchmarkWaiterDelay(b *testing.B) {
	const minDelay, maxDelay = 2 * time.Second, 120 * time.Second
	b.Run("impl=waitable", func(b *testing.B) {
		sched := backoff.WaiterSchedule{MinDelay: minDelay, MaxDelay: maxDelay}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			attempt := i&15 + 1
			sinkDelay = sched.Delay(attempt, time.Duration(attempt)*20*time.Second, minDelay)
		}
	})
	b.Run("impl=smithy-go", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			attempt := i&15 + 1
			d, err := waiter.ComputeDelay(int64(attempt), minDelay, maxDelay, time.Duration(attempt)*20*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			sinkDelay = d
		}
	})
}

// TestWaiterDelayAgreesWithSmithyGo checks that the two implementations
// compared above compute the same thing: with reserve = MinDelay (the rule
// smithy-go implements), every smithy-go delay lies within the range
// Waitable's schedule allows for the same inputs.
func TestWaiterDelayAgreesWithSmithyGo(t *testing.T) {
	const minDelay, maxDelay = 2 * time.Second, 120 * time.Second
	lo := backoff.WaiterSchedule{MinDelay: minDelay, MaxDelay: maxDelay, Jitter: backoff.Low}
	hi := backoff.WaiterSchedule{MinDelay: minDelay, MaxDelay: maxDelay, Jitter: backoff.High}
	for attempt := 1; attempt <= 40; attempt++ {
		for _, remaining := range []time.Duration{5 * time.Second, 30 * time.Second, time.Hour} {
			for range 20 {
				got, err := waiter.ComputeDelay(int64(attempt), minDelay, maxDelay, remaining)
				if err != nil {
					t.Fatal(err)
				}
				min, max := lo.Delay(attempt, remaining, minDelay), hi.Delay(attempt, remaining, minDelay)
				if got < min || got > max {
					t.Fatalf("attempt %d, remaining %v: smithy-go delay %v outside Waitable's [%v, %v]", attempt, remaining, got, min, max)
				}
			}
		}
	}
}
