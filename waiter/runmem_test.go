package waiter_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestRunKeepsOneCheckpoint: a Run holds its latest checkpoint once (the
// one its latest attempt published); whatever the event buffer, and whether the events are read or not, Checkpoint after
// each attempt is that attempt's, and after the end the final Checkpoint.
func TestRunKeepsOneCheckpoint(t *testing.T) {
	for _, buffer := range []int{1, 2, 16} {
		for _, read := range []bool{false, true} {
			t.Run(fmt.Sprintf("buffer=%d/read=%t", buffer, read), func(t *testing.T) {
				clocktest.Run(t, func(t *testing.T) {
					op := readyAfter(6)
					w := mustNew(t, thingExists, op, waiter.WithDelays(time.Second, time.Second))
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
							if a.Checkpoint.Attempts != n || a.Checkpoint.Attempts != cp.Attempts || !a.Checkpoint.Next.Equal(cp.Next) {
								t.Fatalf("event %d (checkpoint %d attempts) disagrees with Checkpoint (%d attempts)", n, a.Checkpoint.Attempts, cp.Attempts)
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

// TestRunLiveCheckpoint: a Run's latest checkpoint is the one its latest
// attempt published, which the next attempt does not change. A late reader still gets each
// kept attempt with the checkpoint after it (the newest's included), a
// Seen once returned never changes, and readers that run during the
// calls, under the race detector, see only whole Checkpoints. So with the
// default event buffer (16), and with none (WithEventBuffer(0)).
func TestRunLiveCheckpoint(t *testing.T) {
	for _, buffer := range []int{16, 0} {
		t.Run(fmt.Sprintf("buffer=%d", buffer), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				op := readyAfter(8)
				w := mustNew(t, thingExists, op, waiter.WithDelays(time.Second, time.Second), waiter.WithEventBuffer(buffer))
				r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
				stop := make(chan struct{})
				read := make(chan struct{})
				go func() { // a reader at the calls' instants, and between them
					defer close(read)
					for {
						if cp := r.Checkpoint(); total(cp.Seen) != cp.Attempts {
							t.Errorf("Checkpoint: %d attempts, Seen counts %d", cp.Attempts, total(cp.Seen))
							return
						}
						select {
						case <-stop:
							return
						case <-time.After(500 * time.Millisecond):
						}
					}
				}()
				clocktest.Settle()
				seen := r.Checkpoint().Seen
				for range 4 {
					clocktest.Advance(time.Second)
					clocktest.Settle()
				}
				close(stop)
				<-read
				if total(seen) != 1 {
					t.Fatalf("the Seen returned after the first call now counts %d answers", total(seen))
				}
				if cp := r.Checkpoint(); cp.Attempts != 5 {
					t.Fatalf("after 5 calls: Checkpoint has %d attempts", cp.Attempts)
				}
				var got []int
				for a := range r.Events() { // a late reader: what the ring kept, then the rest
					got = append(got, a.Checkpoint.Attempts)
					if total(a.Checkpoint.Seen) != a.Checkpoint.Attempts {
						t.Fatalf("attempt %d: its checkpoint counts %d answers", a.Checkpoint.Attempts, total(a.Checkpoint.Seen))
					}
					if a.Checkpoint.Attempts < 8 {
						clocktest.Advance(time.Second)
					}
				}
				if first := 5 - min(buffer, 5) + 1; len(got) == 0 || got[0] != first || got[len(got)-1] != 8 {
					t.Fatalf("attempts read: %v, want %d to 8", got, first)
				}
			})
		})
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
