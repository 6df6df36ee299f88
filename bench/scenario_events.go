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
	"github.com/waitable/waitable/waiter"
)

// The fan-out scenario's "waitable + events" row: the "waitable" row's
// Group and shared 50/s poll rate limit, but nine resources in ten also
// announce their readiness through an event delivered a second later
// (think EventBridge), whose handler pokes that resource's wait
// ([waiter.Run.Poke]). The other tenth never announce: polling alone must
// find them, the schedule is the fallback.
//
// The fallback schedule is WithDelays(5m, 10m). Events find nine
// resources in ten about a second after they are ready, so the schedule
// only has to catch the events that never come, and how late it finds
// those is what its calls buy. Each wait's first call (at its start) and
// its poked call are spent whatever the schedule; polling alone makes
// about nine calls a resource at 1,000 resources, so a third of that
// leaves about one scheduled call per resource over the ten minutes: a
// reconciliation every 5 to 10 minutes, as event-driven systems commonly
// run one. A shorter MinDelay costs more than calls: the first calls,
// paced at 50/s, take 200s at 10,000 resources, and the schedule's first
// delay is MinDelay exactly, so the second calls come MinDelay later at
// the same pace, filling the limit again while the pokes queue for tokens
// behind them (at 10,000 resources, MinDelay 3m gives a p50 of 27s, 2m
// 37s).
//
// The poke gap is 1s. The default, MinDelay, would hold a poke until 5
// minutes after the wait's last call, or leave it to the schedule's next
// call (p50 2m26s); 1s still folds a burst of duplicate deliveries
// (EventBridge delivers at least once) into one call.
const (
	eventShare = 0.9              // of the resources announce their readiness
	eventLag   = time.Second      // from ready to the event's delivery
	eventGap   = time.Second      // WithPokeGap
	eventMin   = 5 * time.Minute  // the fallback schedule's MinDelay
	eventMax   = 10 * time.Minute // and MaxDelay
)

// eventsTold is the row's "told about the limit" column.
var eventsTold = fmt.Sprintf("the service's limit, as \"waitable\"; %.0f%% of resources announce readiness by an event %v later, whose handler calls Poke (WithPokeGap(%v)); fallback schedule WithDelays(%v, %v)",
	100*eventShare, eventLag, eventGap, eventMin, eventMax)

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
	g := waiter.NewGroup(t.Context())
	runs := make([]*waiter.Run[status], n)
	for i := range n {
		w, err := waiter.New(readyDef, svc.describe, waiter.WithPollRateLimit(shared), waiter.WithoutTelemetry(),
			waiter.WithDelays(eventMin, eventMax), waiter.WithPokeGap(eventGap), waiter.WithJitter(backoff.Seeded(seed+uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = waiter.Go(g, w, i, scenarioMaxWait)
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
