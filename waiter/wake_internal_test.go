package waiter

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
)

var pendingDef = Definition{Name: "Pending", Acceptors: []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("Done", classify.BooleanEquals, "true")},
}}

type pendingOut struct{ Done bool }

// TestWaitsShareATimer: a thousand waits of one Group parked until one
// instant arm one timer between them: one leads, the others follow. A
// wait of another Group arms its own. Waits started on their own share
// with those of their synctest bubble (TestSharedWaiterAcrossBubbles:
// never with another's). Each wait on a test clock arms its own.
func TestWaitsShareATimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 1000
		var calls [n + 4]atomic.Int32
		op := func(_ context.Context, i int) (pendingOut, error) {
			calls[i].Add(1)
			return pendingOut{}, nil
		}
		w, err := New(pendingDef, op, WithDelays(2*time.Second, 2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		g, other := NewGroup(ctx), NewGroup(ctx)
		for i := range n {
			Go(g, w, i, time.Hour)
		}
		synctest.Wait() // each has polled once and sleeps
		lead := w.wakes.lead
		if lead == nil || lead.leads == nil || len(lead.leads.followers) != n-1 {
			t.Fatalf("after %d waits parked until one instant, the leader %v has followers %v, want %d", n, lead, lead.leads, n-1)
		}
		Go(other, w, n, time.Hour)
		synctest.Wait()
		otherLead := w.wakes.lead
		if otherLead == lead || otherLead.leads != nil {
			t.Fatalf("a wait of another group joined the group")
		}
		// Waits started on their own in one bubble, parked until one
		// instant, share whatever their contexts: not with a Group's.
		w.Start(context.Background(), n+1, time.Hour)
		w.Start(ctx, n+2, time.Hour)
		w.Start(t.Context(), n+3, time.Hour)
		synctest.Wait()
		l := w.wakes.lead
		if l == otherLead || l.leads == nil || len(l.leads.followers) != 2 {
			t.Fatalf("three waits started on their own in one bubble and parked until one instant did not share a timer")
		}
		if otherLead.leads != nil {
			t.Fatalf("a wait started on its own joined a Group's")
		}
		// Its leader cancelled, the waits that followed it, under other
		// contexts, still make their next call at their instant.
		l.r.Cancel()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		for i := n + 1; i <= n+3; i++ {
			want := int32(2)
			if l.in == i {
				want = 1
			}
			if got := calls[i].Load(); got != want {
				t.Errorf("wait %d (leader %d cancelled): %d calls after 2s, want %d", i, l.in, got, want)
			}
		}
		cancel()
		g.Wait()
		other.Wait()
	})
	m := clocktest.NewMock()
	w, err := New(pendingDef, func(context.Context, int) (pendingOut, error) { return pendingOut{}, nil }, WithClock(m))
	if err != nil {
		t.Fatal(err)
	}
	if w.wakes != nil {
		t.Fatalf("a waiter on a test clock coalesces its timers: a Mock would count fewer armings than waits")
	}
}

// TestCurrentBubble: outside any bubble, 0; inside, the bubble's number,
// the same in the goroutines it starts, another in another bubble.
func TestCurrentBubble(t *testing.T) {
	if id, ok := currentBubble(); id != 0 || !ok {
		t.Fatalf("outside any bubble: currentBubble() = %d, %v, want 0, true", id, ok)
	}
	var ids [2]uint64
	for i := range ids {
		synctest.Test(t, func(t *testing.T) {
			id, ok := currentBubble()
			if id == 0 || !ok {
				t.Fatalf("in a bubble: currentBubble() = %d, %v, want its number", id, ok)
			}
			ids[i] = id
			go func() {
				if child, _ := currentBubble(); child != id {
					t.Errorf("a goroutine of bubble %d: currentBubble() = %d", id, child)
				}
			}()
		})
	}
	if ids[0] == ids[1] {
		t.Fatalf("two bubbles have one number, %d", ids[0])
	}
}
