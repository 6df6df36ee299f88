package backoff_test

import (
	"fmt"
	"time"

	"github.com/waitable/waitable/backoff"
)

// The spec's default schedule, with the jitter pinned to the middle of its
// range so the output is stable: a waiter with 60 seconds to wait polls at
// these offsets, the last one at the very end of the budget.
func ExampleWaiterSchedule_Delay() {
	sched := backoff.WaiterSchedule{Jitter: backoff.Midpoint} // MinDelay 2s, MaxDelay 120s
	const budget = 60 * time.Second
	var elapsed time.Duration
	for attempt := 1; ; attempt++ {
		d := sched.Delay(attempt, budget-elapsed, 0)
		if d == 0 {
			break // no attempt fits in what is left: the waiter times out
		}
		elapsed += d
		fmt.Printf("retry %d after %v, at %v\n", attempt, d, elapsed)
	}
	// Output:
	// retry 1 after 2s, at 2s
	// retry 2 after 3s, at 5s
	// retry 3 after 5s, at 10s
	// retry 4 after 9s, at 19s
	// retry 5 after 17s, at 36s
	// retry 6 after 24s, at 1m0s
}

// Sub-second delays keep their precision.
func ExampleWaiterSchedule_subSecond() {
	sched := backoff.WaiterSchedule{MinDelay: 250 * time.Millisecond, MaxDelay: time.Second, Jitter: backoff.High}
	for attempt := 1; attempt <= 4; attempt++ {
		fmt.Println(sched.Delay(attempt, time.Minute, 0))
	}
	// Output:
	// 250ms
	// 500ms
	// 1s
	// 1s
}

// The retry backoff strategies, each at the high end of its jitter.
func ExamplePolicy() {
	for _, p := range []backoff.Policy{
		backoff.Immediate(),
		backoff.FixedWithoutJitter(time.Second),
		backoff.Exponential(50*time.Millisecond, 20*time.Second),
		backoff.ExponentialHalfJitter(time.Second, 4*time.Second),
	} {
		p = p.WithJitter(backoff.High)
		fmt.Printf("%-32v", p)
		for attempt := 1; attempt <= 4; attempt++ {
			fmt.Printf(" %v", p.Delay(attempt, 0))
		}
		fmt.Println()
	}
	// Output:
	// Immediate()                      0s 0s 0s 0s
	// FixedWithoutJitter(1s)           1s 1s 1s 1s
	// Exponential(50ms, 20s)           50ms 100ms 200ms 400ms
	// ExponentialHalfJitter(1s, 4s)    1s 2s 4s 4s
}

// Decorrelated jitter needs the previous delay: the caller carries it, so
// the policy itself stays stateless and shareable.
func ExampleDecorrelated() {
	p := backoff.Decorrelated(time.Second, 30*time.Second).WithJitter(backoff.High)
	var prev time.Duration
	for attempt := 1; attempt <= 5; attempt++ {
		prev = p.Delay(attempt, prev)
		fmt.Println(prev)
	}
	// Output:
	// 3s
	// 9s
	// 27s
	// 30s
	// 30s
}

// Seeded jitter replays the same schedule for the same seed.
func ExampleSeeded() {
	a, b := backoff.Seeded(42), backoff.Seeded(42)
	sa := backoff.WaiterSchedule{Jitter: a}
	sb := backoff.WaiterSchedule{Jitter: b}
	same := true
	for attempt := 1; attempt <= 20; attempt++ {
		same = same && sa.Delay(attempt, time.Hour, 0) == sb.Delay(attempt, time.Hour, 0)
	}
	fmt.Println("same schedule:", same)
	// Output:
	// same schedule: true
}
