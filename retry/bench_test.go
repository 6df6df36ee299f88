package retry_test

import (
	"context"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/retry"
)

var sinkInt int

// failing returns an operation that fails 10 times with a 503, then
// succeeds, over and over.
func failing() func(context.Context) (int, error) {
	n := 0
	return func(context.Context) (int, error) {
		if n++; n%11 != 0 {
			return 0, transient{}
		}
		return n, nil
	}
}

// BenchmarkDo is the retry loop's overhead: an operation that fails 10
// times then succeeds, with zero delays, through the standard strategy, and
// through a hand-written loop that arms one timer per retry. ns/op and
// allocs/op are per call of 11 attempts.
func BenchmarkDo(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=waitable", func(b *testing.B) {
		s, err := retry.NewStandard(retry.WithMaxAttempts(11), retry.WithBackoff(backoff.Immediate()), retry.WithCosts(0, 0, 0))
		if err != nil {
			b.Fatal(err)
		}
		op := failing()
		b.ReportAllocs()
		for b.Loop() {
			v, err := retry.Do(ctx, s, op)
			if err != nil {
				b.Fatal(err)
			}
			sinkInt = v
		}
	})
	b.Run("impl=hand-written", func(b *testing.B) {
		op := failing()
		b.ReportAllocs()
		for b.Loop() {
			v, err := handWritten(ctx, op)
			if err != nil {
				b.Fatal(err)
			}
			sinkInt = v
		}
	})
}

// handWritten is the loop people write: call, and on error wait on a timer
// before the next call.
func handWritten(ctx context.Context, op func(context.Context) (int, error)) (int, error) {
	for attempt := 1; ; attempt++ {
		v, err := op(ctx)
		if err == nil || attempt == 11 {
			return v, err
		}
		t := time.NewTimer(0)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		}
	}
}
