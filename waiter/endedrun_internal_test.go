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
// outcome and a copy of its final Checkpoint, not the wait: a caller
// that holds a million ended Runs holds neither their loops (contexts,
// timers, the driver's state) nor their Batch members. So for Start, a
// Group's Go and Batch.Add, with the default event buffer and with none.
func TestEndedRunLetsGoOfItsWait(t *testing.T) {
	for _, buffer := range []int{16, 0} {
		for _, entry := range []string{"Start", "Go", "Batch.Add"} {
			t.Run(fmt.Sprintf("%s/buffer=%d", entry, buffer), func(t *testing.T) {
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
					clocktest.Advance(time.Second)
					if _, err := r.Result(); err != nil {
						t.Fatal(err)
					}
					clocktest.Settle()
					runtime.GC()
					runtime.GC()
					if alive() {
						t.Errorf("the ended Run still holds its wait")
					}
					if cp := r.Checkpoint(); cp.Attempts != 2 || cp.End != "success" {
						t.Errorf("final Checkpoint: %d attempts, end %q; want 2, success", cp.Attempts, cp.End)
					}
				})
			})
		}
	}
}
