package bench

import (
	"time"

	smithywaiter "github.com/aws/smithy-go/waiter"

	"github.com/waitable/waitable/backoff"
)

//lint:ignore U1000 a sink: the compiler must not drop the benchmarked call
var sinkDelay time.Duration

// delaySides are row 1's sides: one waiter delay computation. Waitable's
// backoff.WaiterSchedule.Delay (math/rand/v2 jitter) against
// smithy-go/waiter.ComputeDelay (crypto/rand jitter), the function the AWS
// SDK for Go v2's generated waiters call. Both get the same inputs: the
// specification's default 2s/120s schedule, attempts cycling 1..16, and a
// remaining time that sometimes triggers the last-attempt rule.
func delaySides() []Side {
	const minDelay, maxDelay = 2 * time.Second, 120 * time.Second
	sched := backoff.WaiterSchedule{MinDelay: minDelay, MaxDelay: maxDelay}
	return []Side{
		{"waitable", func(n int) {
			for i := range n {
				attempt := i&15 + 1
				sinkDelay = sched.Delay(attempt, time.Duration(attempt)*20*time.Second, minDelay)
			}
		}},
		{"smithy-go waiter.ComputeDelay", func(n int) {
			for i := range n {
				attempt := i&15 + 1
				d, err := smithywaiter.ComputeDelay(int64(attempt), minDelay, maxDelay, time.Duration(attempt)*20*time.Second)
				if err != nil {
					panic(err)
				}
				sinkDelay = d
			}
		}},
	}
}
