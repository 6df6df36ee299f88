package clocktest

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
)

// Run runs f in a [testing/synctest] bubble: inside it, the real clock
// ([clock.New], the time package) is virtual. Time stands still while any
// goroutine of the bubble can run, and jumps straight to the next timer when
// all of them are blocked, so waits of hours take no real time and every
// instant is exact. Code under test takes [Clock] (or any clock.New()) as
// its clock.
//
// Goroutines started in f must end before f returns (synctest reports a
// deadlock otherwise), which makes a leaked poller a test failure. Run is
// synctest.Test with this package's name on it; see that function for the
// rules of a bubble.
func Run(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, f)
}

// Clock returns the real clock, [clock.New]. Inside a bubble started by
// [Run] it is virtual and exact.
func Clock() clock.Clock { return clock.New() }

// Settle blocks until every other goroutine of the current bubble is
// durably blocked: whatever the code under test does in response to the
// last event has been done. It must be called inside [Run].
func Settle() { synctest.Wait() }

// Advance moves the bubble's virtual time forward by exactly d, letting
// every timer due on the way fire in order (each woken goroutine runs until
// it blocks again before time moves on), then settles as [Settle] does. It
// must be called inside [Run]. Advance(0) is Settle.
//
// Settle gives the race detector a happens-before edge from the settled
// goroutines to the test, but Advance gives none from the test to the
// goroutines its timers wake: state the test writes and they read must go
// through a channel, a mutex or an atomic.
func Advance(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
	synctest.Wait()
}
