// Package timers re-arms timers of an injected clock so that a test clock
// can see it: benbjohnson/clock's Timer.Reset cannot tell its clock, so a
// clock that counts armed timers (clocktest.Mock) offers ResetTimer, and
// the waiter and retry packages re-arm through it.
package timers

import (
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
