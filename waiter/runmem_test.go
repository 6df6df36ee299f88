package waiter_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestRunKeepsOneCheckpoint: a Run holds its latest checkpoint once, in
// the event it keeps for a late reader; whatever the event buffer, and
// whether the events are read or not, Checkpoint after each attempt is
// that attempt's, and after the end the final State.
func TestRunKeepsOneCheckpoint(t *testing.T) {
	for _, buffer := range []int{1, 2, 16} {
		for _, read := range []bool{false, true} {
			t.Run(fmt.Sprintf("buffer=%d/read=%t", buffer, read), func(t *testing.T) {
				clocktest.Run(t, func(t *testing.T) {
					calls := 0
					op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
						if calls++; calls < 6 {
							return status("pending"), nil
						}
						return status("success"), nil
					}
					w := mustNew(t, thingExists, op, waiter.WithDelays(time.Second, time.Second), waiter.WithEventBuffer(buffer))
					r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
					var events <-chan waiter.Attempt[*GetThingOutput]
					if read {
						events = r.Events()
					}
					for n := 1; n <= 5; n++ {
						clocktest.Settle()
						cp := r.Checkpoint()
						if cp.Attempts != n {
							t.Fatalf("after call %d: Checkpoint has %d attempts", n, cp.Attempts)
						}
						if read {
							a := <-events
							if a.Number != n || a.Checkpoint.Attempts != cp.Attempts || !a.Checkpoint.Next.Equal(cp.Next) {
								t.Fatalf("event %d (checkpoint %d attempts) disagrees with Checkpoint (%d attempts)", a.Number, a.Checkpoint.Attempts, cp.Attempts)
							}
						}
						clocktest.Advance(time.Second)
					}
					if _, err := r.Result(); err != nil {
						t.Fatal(err)
					}
					if cp := r.Checkpoint(); cp.Attempts != 6 || cp.End != "success" {
						t.Errorf("final Checkpoint: %d attempts, end %q; want 6, success", cp.Attempts, cp.End)
					}
				})
			})
		}
	}
}

// TestRunDoneAskedLate: Done made only when asked is still one channel,
// closed at the end, however late it is asked.
func TestRunDoneAskedLate(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) { return status("pending"), nil }
		w := mustNew(t, thingExists, op, waiter.WithDelays(time.Second, time.Second))
		early := w.Start(t.Context(), GetThingInput{"a"}, time.Minute)
		late := w.Start(t.Context(), GetThingInput{"b"}, time.Minute)
		d := early.Done()
		if d != early.Done() {
			t.Fatal("Done returned two channels")
		}
		select {
		case <-d:
			t.Fatal("Done is closed before the wait ended")
		default:
		}
		clocktest.Advance(time.Hour)
		for _, c := range []<-chan struct{}{d, late.Done()} {
			select {
			case <-c:
			default:
				t.Fatal("Done is not closed after the wait ended")
			}
		}
	})
}
