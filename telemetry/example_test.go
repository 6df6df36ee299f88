package telemetry_test

import (
	"context"
	"fmt"
	"time"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// attemptPrinter is an Observer of one's own: it prints each attempt.
type attemptPrinter struct{}

func (attemptPrinter) StartWait(ctx context.Context, w telemetry.Wait, start time.Time) (context.Context, telemetry.WaitObserver) {
	return ctx, attemptPrinter{}
}
func (attemptPrinter) Recording() bool { return false }
func (attemptPrinter) StartAttempt(ctx context.Context, n int, start time.Time) context.Context {
	return ctx
}
func (attemptPrinter) EndAttempt(ctx context.Context, a telemetry.Attempt, end time.Time) {
	fmt.Printf("attempt %d: %s\n", a.Number, a.State)
}
func (attemptPrinter) EndWait(o telemetry.Outcome, end time.Time) {
	fmt.Printf("%s after %d attempts\n", o.Outcome, o.Attempts)
}

// An Observer of one's own, beside (or instead of) OpenTelemetry.
func ExampleObserver() {
	calls := 0
	op := func(ctx context.Context, name string) (Output, error) {
		if calls++; calls < 3 {
			return Output{"CREATING"}, nil
		}
		return Output{"ACTIVE"}, nil
	}
	w, _ := waiter.New(tableActive, op, waiter.WithTelemetry(telemetry.Settings{Off: true, Extra: []telemetry.Observer{attemptPrinter{}}}),
		waiter.WithDelays(time.Microsecond, time.Microsecond)) // short delays keep the example fast
	w.Wait(context.Background(), "orders", time.Minute)
	// Output:
	// attempt 1: retry
	// attempt 2: retry
	// attempt 3: success
	// success after 3 attempts
}
