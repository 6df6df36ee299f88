// Package clocktest makes tests of waiting code deterministic: exact virtual
// times, no real sleeps, no races between the test and the code it drives.
//
//	func TestWaitsAnHour(t *testing.T) {
//		clocktest.Run(t, func(t *testing.T) {
//			_, err := w.Wait(t.Context(), in, time.Hour) // an hour of polling, at once
//		})
//	}
//
// The module's packages take a [github.com/benbjohnson/clock.Clock]; this
// package offers two ways to drive one.
//
// The first, and the better, is [testing/synctest]: [Run] starts a bubble in
// which the real clock is virtual. The code under test uses [Clock] (the
// real clock), time jumps to the next timer whenever every goroutine is
// blocked, and [Advance] and [Settle] let the test move time exactly and
// wait until the code has reacted:
//
//	func TestPoller(t *testing.T) {
//		clocktest.Run(t, func(t *testing.T) {
//			start := time.Now()
//			polls, err := poll(t.Context(), clocktest.Clock(), 3*time.Second)
//			// time.Since(start) is exact here: 12s, not "about 12s".
//		})
//	}
//
// The second is [Mock], for code that must run outside a bubble (a test
// helper shared with benchmarks, goroutines the bubble cannot hold). It
// wraps [github.com/benbjohnson/clock.Mock], whose Add races with the
// goroutine that is about to arm a timer, and removes the race by counting
// armings: [Mock.WaitArmed] blocks until the code under test has armed its
// n-th timer, and [Mock.Step] moves time to the next timer's deadline.
//
// What the package deliberately does not do: it does not patch the time
// package or offer an "eventually" helper that polls on real time. A test
// that needs either is racing; both helpers here wait for an event instead.
package clocktest
