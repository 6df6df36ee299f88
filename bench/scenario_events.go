package bench

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// The fan-out scenario's "waitable + events" row: the "waitable" row's
// Group and shared 50/s poll rate limit, but nine resources in ten also
// announce their readiness through an event delivered a second later
// (think EventBridge), whose handler pokes that resource's wait
// ([waiter.Run.Poke]). The other tenth never announce: polling alone must
// find them, the schedule is the fallback.
//
// The fallback schedule is WithDelays(5m, 10m), its first call 5
// minutes in (WithInitialDelay). Events find nine resources in ten about
// a second after they are ready, so the schedule only has to catch the
// events that never come, and how late it finds those is what its calls
// buy: a reconciliation every 5 to 10 minutes, as event-driven systems
// commonly run one. Without the initial delay every wait would spend a
// call at its start (200s of calls at 50/s at 10,000 resources). A
// shorter MinDelay costs more than calls: paced at 50/s, the scheduled
// calls fill the limit while the pokes queue for tokens behind them (at
// 10,000 resources, MinDelay 3m gave a p50 of 27s, 2m 37s).
//
// At 10,000 resources polling alone is held at the limit, under three
// calls a resource: a third of its calls is less than one call a
// resource, fewer than detecting each resource takes when a call asks for
// one; the 9,000 poked calls alone are 31% of it.
//
// The poke gap is the waiter's own, 1s here (a second, or MinDelay if
// shorter; no option sets it): it folds a burst of duplicate deliveries
// (EventBridge delivers at least once) into one call.
const (
	eventShare = 0.9              // of the resources announce their readiness
	eventLag   = time.Second      // from ready to the event's delivery
	eventGap   = time.Second      // the poke gap: a second, or MinDelay if shorter
	eventMin   = 5 * time.Minute  // the fallback schedule's MinDelay
	eventMax   = 10 * time.Minute // and MaxDelay
)

// eventsTold is the row's "told about the limit" column.
var eventsTold = fmt.Sprintf("the service's limit, as \"waitable\"; %.0f%% of resources announce readiness by an event %v later, whose handler calls Poke (a poke gap of %v); fallback schedule WithDelays(%v, %v), WithInitialDelay(%v)",
	100*eventShare, eventLag, eventGap, eventMin, eventMax, eventMin)

// announced draws which resources announce their readiness: all but a
// tenth, drawn from seed on a stream of their own, so that readyTimes,
// and with it every other row, is unchanged.
func announced(n int, seed uint64) []bool {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]bool, n)
	for k, i := range r.Perm(n) {
		out[i] = float64(k) < eventShare*float64(n)
	}
	return out
}

// runEvented runs the "waitable + events" client against svc, in the
// calling synctest bubble.
func runEvented(t *testing.T, svc *service, seed uint64) {
	n := len(svc.readyAt)
	shared := rate.NewLimiter(scenarioLimit, 1)
	g := waiter.NewGroup(t.Context(), waiter.GroupOptions{})
	runs := make([]*waiter.Run[status], n)
	for i := range n {
		w, err := waiter.New(readyDef, svc.describe, waiter.WithPollRateLimit(shared), waiter.WithTelemetry(telemetry.Settings{Off: true}),
			waiter.WithDelays(eventMin, eventMax), waiter.WithInitialDelay(eventMin), waiter.WithJitter(backoff.Seeded(seed+uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = waiter.Go(g, "", w, i, scenarioMaxWait)
		time.Sleep(10 * time.Microsecond) // staggered starts
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		deliverEvents(t.Context(), svc, announced(n, seed), func(i int) { runs[i].Poke() })
	}()
	g.Wait()
	<-done
}

// deliverEvents calls handle(i) eventLag after resource i becomes ready,
// for each resource that announces it, in the order of delivery: one
// consumer of the event bus, as a queue's would be.
func deliverEvents(ctx context.Context, svc *service, announces []bool, handle func(i int)) {
	var order []int
	for i, a := range announces {
		if a {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(svc.readyAt[a], svc.readyAt[b]), cmp.Compare(a, b)) })
	for _, i := range order {
		if d := time.Until(svc.start.Add(svc.readyAt[i] + eventLag)); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return
			}
		}
		handle(i)
	}
}
