// Package timers re-arms timers of an injected clock so that a test clock
// can see it: benbjohnson/clock's Timer.Reset cannot tell its clock, so a
// clock that counts armed timers (clocktest.Mock) offers ResetTimer, and
// the waiter and retry packages re-arm through it. IsReal tells the real
// clock, on which they use the time package directly.
package timers

import (
	"reflect"
	"time"

	"github.com/benbjohnson/clock"
)

// resetter is implemented by clocks that want to see every re-arming.
type resetter interface {
	ResetTimer(t *clock.Timer, d time.Duration) bool
}

// Reset re-arms t, made by clk, to fire after d.
func Reset(clk clock.Clock, t *clock.Timer, d time.Duration) bool {
	if r, ok := clk.(resetter); ok {
		return r.ResetTimer(t, d)
	}
	return t.Reset(d)
}

// realClock is the type of clock.New()'s clock.
var realClock = reflect.TypeOf(clock.New())

// IsReal reports whether clk is the real clock (clock.New()'s), which
// only calls the time package: code may then call it directly, without
// the clock's wrappers (inside a testing/synctest bubble, the time
// package is the bubble's virtual time).
func IsReal(clk clock.Clock) bool { return reflect.TypeOf(clk) == realClock }
