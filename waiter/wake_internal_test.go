package waiter

import (
	"context"
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
// wait of another Group, or started on its own, arms its own; so does
// each wait on a test clock.
func TestWaitsShareATimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := func(context.Context, int) (pendingOut, error) { return pendingOut{}, nil }
		w, err := New(pendingDef, op, WithDelays(2*time.Second, 2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		g, other := NewGroup(ctx), NewGroup(ctx)
		const n = 1000
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
		// Two waits started on their own under one context, parked until
		// one instant: neither leads nor follows.
		w.Start(ctx, n+1, time.Hour)
		w.Start(ctx, n+2, time.Hour)
		synctest.Wait()
		if l := w.wakes.lead; l != otherLead || l.leads != nil {
			t.Fatalf("waits started on their own shared a timer")
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
