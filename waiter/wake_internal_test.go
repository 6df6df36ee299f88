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

// TestWaitsShareATimer: a thousand waits parked until one instant under
// one context arm one timer between them: one leads, the others follow.
// Under another context, or on a test clock, each arms its own.
func TestWaitsShareATimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := func(context.Context, int) (pendingOut, error) { return pendingOut{}, nil }
		w, err := New(pendingDef, op, WithDelays(2*time.Second, 2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		other, cancelOther := context.WithCancel(t.Context())
		const n = 1000
		for i := range n {
			w.Start(ctx, i, time.Hour)
		}
		synctest.Wait() // each has polled once and sleeps
		lead := w.wakes.lead
		if lead == nil || lead.leads == nil || len(lead.leads.followers) != n-1 {
			t.Fatalf("after %d waits parked until one instant, the leader %v has followers %v, want %d", n, lead, lead.leads, n-1)
		}
		w.Start(other, n, time.Hour)
		synctest.Wait()
		if l := w.wakes.lead; l == lead || l.leads != nil {
			t.Fatalf("a wait under another context joined the group")
		}
		cancel()
		cancelOther()
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
