package bench

import (
	"testing"
	"time"

	"github.com/aws/smithy-go/waiter"

	"github.com/waitable/waitable/backoff"
)

// BenchmarkWaiterDelay is row 1 for go test: see delaySides.
func BenchmarkWaiterDelay(b *testing.B) { benchSides(b, delaySides()) }

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
