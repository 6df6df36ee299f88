// Package backoff computes delays: the Smithy waiter schedule
// ([WaiterSchedule]) and the usual retry backoff strategies ([Policy]).
//
//	s := backoff.WaiterSchedule{MinDelay: 2 * time.Second, MaxDelay: 2 * time.Minute}
//	d := s.Delay(attempt, remaining, s.MinDelay) // 0: no time left for another call
//	p := backoff.Exponential(50*time.Millisecond, 20*time.Second)
//	d = p.Delay(retry, prev)
//
// Use it when you need the numbers without the loop: a waiter or retry loop
// of your own, a simulator that prints a schedule, a test that checks the
// exact times a poller should wake. The waiter and retry packages of this
// module use it for their delays.
//
// Everything here is pure: a delay is a function of the attempt number, the
// time remaining, the previous delay and a [Jitter]. Randomness comes only
// through a Jitter, so tests pass [Low], [High] or [Midpoint] for exact
// values, simulations pass [Seeded] for reproducible ones, and production
// uses [Uniform] (the default when a Jitter is nil).
//
// What the package deliberately does not do:
//   - It does not sleep, hold a clock or start goroutines. Waiting is the
//     caller's business, done through the caller's injected clock, so that
//     the math is testable without time and the waiting is cancellable.
//   - It keeps no state between calls. [Decorrelated] needs the previous
//     delay; the caller passes it in, so one [Policy] value can be shared by
//     any number of concurrent loops without a lock.
//   - It does not use crypto/rand: jitter spreads load and keeps no secret,
//     and the math/rand/v2 generator is lock-free and an order of magnitude
//     cheaper.
package backoff
