package bench

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/waiter"
)

// BenchmarkPoll is row 4a for go test: see pollSides.
func BenchmarkPoll(b *testing.B) { benchSides(b, pollSides(time.Nanosecond, false)) }

// BenchmarkPollCancellable is row 4c: the runs under a caller's context
// that can be cancelled.
func BenchmarkPollCancellable(b *testing.B) { benchSides(b, pollSides(time.Nanosecond, true)) }

// TestPollSidesMakeTheSameWait checks that the sides of rows 4a to 4c
// make the same wait: with 2 s delays (the Smithy schedule's jitter
// draws from [2s, 2s]), a run makes 11 calls, 2 s apart, and ends with
// the 11th answer, ACTIVE.
func TestPollSidesMakeTheSameWait(t *testing.T) {
	loops := map[string]pollLoop{
		"hand-written": HandPoll,
		"Smithy":       SmithyPoll,
		"k8s wait":     k8sPoll,
		"waitable": func(ctx context.Context, delay time.Duration, op func(context.Context, string) (*pollOutput, error)) error {
			w, err := waiter.New(pollDef, op, waiter.WithDelays(delay, delay))
			if err != nil {
				return err
			}
			_, err = w.Wait(ctx, "thing", time.Hour)
			return err
		},
	}
	for name, loop := range loops {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				op, calls := pollOp(), []time.Duration{}
				start := time.Now()
				counted := func(ctx context.Context, in string) (*pollOutput, error) {
					calls = append(calls, time.Since(start))
					return op(ctx, in)
				}
				if err := loop(context.Background(), 2*time.Second, counted); err != nil {
					t.Fatalf("the run ended with %v", err)
				}
				if len(calls) != 11 {
					t.Fatalf("the run made %d calls, want 11", len(calls))
				}
				for i, at := range calls {
					if want := time.Duration(i) * 2 * time.Second; at != want {
						t.Fatalf("call %d came at %v, want %v (all: %v)", i+1, at, want, calls)
					}
				}
			})
		})
	}
}
