package waiter

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
)

// readyOut is the output of the waits of TestEndedRunLetsGoOfItsWait.
type readyOut struct{ State string }

// TestEndedRunLetsGoOfItsWait: once a wait has ended, its Run keeps its
// outcome and a copy of its final Checkpoint, not the wait, as Run's doc
// promises: a caller that holds a million ended Runs holds neither their
// loops (contexts, timers, the driver's state) nor their Batch members.
// So for Start, a Group's Go and Batch.Add, with the default event buffer
// and with none, for a wait that succeeded and one cancelled while it
// slept.
func TestEndedRunLetsGoOfItsWait(t *testing.T) {
	for _, buffer := range []int{16, 0} {
		for _, entry := range []string{"Start", "Go", "Batch.Add"} {
			for _, cancel := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/buffer=%d/cancel=%t", entry, buffer, cancel), func(t *testing.T) {
					endedRunLetsGo(t, entry, buffer, cancel)
				})
			}
		}
	}
}

// endedRunLetsGo is TestEndedRunLetsGoOfItsWait's case: a wait of entry
// with the event buffer, pending at its first call, then ready at its
// second, or cancelled between them.
func endedRunLetsGo(t *testing.T, entry string, buffer int, cancel bool) {
	clocktest.Run(t, func(t *testing.T) {
		calls := map[int]int{}
		poll := func(k int) readyOut { // pending, then ready
			if calls[k]++; calls[k] == 2 {
				return readyOut{"ready"}
			}
			return readyOut{"pending"}
		}
		def := Definition{Name: "Ready", Acceptors: []classify.Acceptor{
			{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "ready")}}}
		opts := []Option{WithDelays(time.Second, time.Second), WithEventBuffer(buffer)}
		var r *Run[readyOut]
		var alive func() bool // whether the wait is still in memory
		if entry != "Batch.Add" {
			w, err := New(def, func(_ context.Context, k int) (readyOut, error) { return poll(k), nil }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if entry == "Start" {
				r = w.Start(t.Context(), 1, time.Hour)
			} else {
				r = Go(NewGroup(t.Context(), GroupOptions{}), "", w, 1, time.Hour)
			}
			clocktest.Settle()
			p := weak.Make(r.control().(*loop[int, readyOut]))
			alive = func() bool { return p.Value() != nil }
		} else {
			b, err := NewBatch(def, func(_ context.Context, ks []int) (map[int]readyOut, error) {
				outs := map[int]readyOut{}
				for _, k := range ks {
					outs[k] = poll(k)
				}
				return outs, nil
			}, BatchOptions[int, readyOut]{Linger: -1}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			r = b.Add(t.Context(), 1, time.Hour)
			clocktest.Settle()
			p := weak.Make(r.control().(*member[int, readyOut]))
			alive = func() bool { return p.Value() != nil }
		}
		want, end := 2, "success"
		if cancel {
			r.Cancel()
			want, end = 1, "cancelled"
		} else {
			clocktest.Advance(time.Second)
		}
		if _, err := r.Result(); (err != nil) != cancel {
			t.Fatalf("Result: %v", err)
		}
		clocktest.Settle()
		runtime.GC()
		runtime.GC()
		if alive() {
			t.Errorf("the ended Run still holds its wait")
		}
		if cp := r.Checkpoint(); cp.Attempts != want || cp.End != end {
			t.Errorf("final Checkpoint: %d attempts, end %q; want %d, %s", cp.Attempts, cp.End, want, end)
		}
	})
}
