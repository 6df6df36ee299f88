package bench

import (
	"context"
	"errors"
	"testing"
	"time"
)

// BenchmarkRetryLoop is row 2 for go test (zero delay): see retrySides.
func BenchmarkRetryLoop(b *testing.B) { benchSides(b, retrySides(0)) }

// TestRetryLoopsAgree: every loop compared makes 11 attempts and succeeds,
// with and without a delay.
func TestRetryLoopsAgree(t *testing.T) {
	for _, delay := range []time.Duration{0, time.Nanosecond} {
		for _, l := range RetryLoops {
			calls := 0
			v, err := l.New(delay)(context.Background(), delay, func() (int, error) {
				calls++
				if calls < 11 {
					return 0, errUnavailable
				}
				return 1, nil
			})
			if v != 1 || err != nil || calls != 11 {
				t.Errorf("%s, delay %v: %v, %v after %d calls; want success after 11", l.Name, delay, v, err, calls)
			}
			if errors.Is(err, errUnavailable) {
				t.Errorf("%s returned the operation's error on success", l.Name)
			}
		}
	}
}
